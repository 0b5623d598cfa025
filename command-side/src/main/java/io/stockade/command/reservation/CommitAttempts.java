package io.stockade.command.reservation;

import io.stockade.api.reservation.ReserveStockCommand;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.axonframework.commandhandling.CommandBus;
import org.axonframework.commandhandling.CommandMessage;
import org.axonframework.messaging.InterceptorChain;
import org.axonframework.messaging.MessageHandlerInterceptor;
import org.axonframework.messaging.unitofwork.UnitOfWork;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Tells whether the transaction storing a reservation reached its commit. A failure before that
 * point stored nothing, for certain, so the gate's units can be given back at once; a failure at or
 * after it may have stored the reservation (the connection died during the commit, say), and only
 * the record can tell: the recovery sweeper settles it.
 */
@Component
class CommitAttempts implements MessageHandlerInterceptor<CommandMessage<?>> {

  private final Set<String> unwatched = ConcurrentHashMap.newKeySet();
  private final Set<String> committing = ConcurrentHashMap.newKeySet();

  CommitAttempts(CommandBus commands) {
    commands.registerHandlerInterceptor(this);
  }

  @Override
  public Object handle(
      UnitOfWork<? extends CommandMessage<?>> unitOfWork, InterceptorChain interceptorChain)
      throws Exception {
    CommandMessage<?> command = unitOfWork.getMessage();
    if (command.getPayload() instanceof ReserveStockCommand) {
      String id = command.getIdentifier();
      if (!TransactionSynchronizationManager.isSynchronizationActive()) {
        unwatched.add(id); // No transaction to watch: treated as committing.
        return interceptorChain.proceed();
      }
      TransactionSynchronizationManager.registerSynchronization(
          new TransactionSynchronization() {
            @Override
            public void beforeCommit(boolean readOnly) {
              committing.add(id);
            }
          });
    }
    return interceptorChain.proceed();
  }

  /**
   * Whether the storing transaction of the command with this message id may have committed; asked
   * once, after the command returned or failed. No when it failed before it reached its commit
   * (also before its transaction began: the database was unreachable, say); yes when it reached the
   * commit, or ran without a transaction that could be watched.
   */
  boolean mayHaveCommitted(String commandMessageId) {
    boolean reachedCommit = committing.remove(commandMessageId);
    return unwatched.remove(commandMessageId) || reachedCommit;
  }
}
