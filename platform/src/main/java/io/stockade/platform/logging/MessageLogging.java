package io.stockade.platform.logging;

import java.util.Map;
import org.axonframework.config.ConfigurerModule;
import org.axonframework.messaging.InterceptorChain;
import org.axonframework.messaging.Message;
import org.axonframework.messaging.MessageHandlerInterceptor;
import org.axonframework.messaging.correlation.CorrelationDataProvider;
import org.axonframework.messaging.unitofwork.UnitOfWork;
import org.slf4j.MDC;

/**
 * The logging context across messages. Events take the request id and reservation id of the command
 * (or deadline) that produced them into their metadata, from the message being handled or else from
 * the MDC of the request handling it; an event handler has them in its MDC while it handles the
 * event.
 */
final class MessageLogging {

  private MessageLogging() {}

  /** Metadata of new messages: the handled message's keys, else the MDC's. */
  static CorrelationDataProvider correlation() {
    return message -> {
      Map<String, String> values = LoggingContext.current();
      for (String key : LoggingContext.KEYS) {
        Object value = message.getMetaData().get(key);
        if (value != null) {
          values.put(key, value.toString());
        }
      }
      return Map.copyOf(values);
    };
  }

  /** Every event processor puts the keys of the event it handles into the MDC. */
  static ConfigurerModule eventHandlerContext() {
    return configurer ->
        configurer
            .eventProcessing()
            .registerDefaultHandlerInterceptor((configuration, name) -> new MdcFromMetaData<>());
  }

  /** The message's keys in the MDC while it is handled; the MDC as it was afterwards. */
  static final class MdcFromMetaData<T extends Message<?>> implements MessageHandlerInterceptor<T> {

    @Override
    public Object handle(UnitOfWork<? extends T> unitOfWork, InterceptorChain chain)
        throws Exception {
      Map<String, String> before = LoggingContext.current();
      for (String key : LoggingContext.KEYS) {
        Object value = unitOfWork.getMessage().getMetaData().get(key);
        if (value != null) {
          MDC.put(key, value.toString());
        } else {
          MDC.remove(key);
        }
      }
      try {
        return chain.proceed();
      } finally {
        LoggingContext.clear();
        before.forEach(MDC::put);
      }
    }
  }
}
