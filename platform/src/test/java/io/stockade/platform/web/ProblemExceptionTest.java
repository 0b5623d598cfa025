package io.stockade.platform.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.http.HttpStatus;

/** A problem never names an extension like a member of RFC 9457: its body would say it twice. */
class ProblemExceptionTest {

  @ParameterizedTest
  @ValueSource(strings = {"type", "title", "status", "detail", "instance"})
  void refusesAnExtensionNamedLikeAMemberOfRfc9457(String member) {
    assertThatIllegalArgumentException()
        .isThrownBy(
            () ->
                new ProblemException(
                    HttpStatus.CONFLICT,
                    "reservation-not-active",
                    "Reservation not active",
                    "Reservation O-1 is already CONFIRMED; nothing was changed.",
                    Map.of("reservationId", "O-1", member, "CONFIRMED")))
        .withMessageContaining("reservation-not-active")
        .withMessageContaining(member);
  }

  @ParameterizedTest
  @ValueSource(strings = {"reservationStatus", "Status", "statusCode", "skuId"})
  void keepsExtensionsOfOtherNames(String member) {
    ProblemException problem =
        new ProblemException(
            HttpStatus.CONFLICT, "some-code", "Some title", "Some detail.", Map.of(member, "x"));

    assertThat(problem.properties()).containsEntry(member, "x");
  }
}
