package io.stockade.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stockade.platform.web.ProblemException;
import java.util.concurrent.atomic.AtomicInteger;
import org.axonframework.modelling.command.ConcurrencyException;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;

class RacedAppendsTest {

  @Test
  void aCommandThatLostTheRaceIsSentAgainUntilItIsDecided() {
    AtomicInteger tries = new AtomicInteger();

    String answer =
        RacedAppends.retried(
            () -> {
              if (tries.incrementAndGet() < 3) {
                throw new ConcurrencyException("another instance appended first");
              }
              return "decided";
            });

    assertThat(answer).isEqualTo("decided");
    assertThat(tries).hasValue(3);
  }

  @Test
  void aCommandThatLosesEveryTryIsAnsweredUnavailableNeverAsAServerError() {
    AtomicInteger tries = new AtomicInteger();

    assertThatThrownBy(
            () ->
                RacedAppends.retried(
                    () -> {
                      tries.incrementAndGet();
                      throw new ConcurrencyException("another instance appended first");
                    }))
        .isInstanceOfSatisfying(
            ProblemException.class,
            problem -> {
              assertThat(problem.status()).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
              assertThat(problem.code()).isEqualTo("event-store-unavailable");
              assertThat(problem.headers().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("1");
            });
    assertThat(tries).hasValue(RacedAppends.ATTEMPTS);
  }
}
