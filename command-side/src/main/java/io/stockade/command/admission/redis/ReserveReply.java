package io.stockade.command.admission.redis;

import static io.stockade.command.admission.redis.GateScripts.code;
import static io.stockade.command.admission.redis.GateScripts.instant;
import static io.stockade.command.admission.redis.GateScripts.number;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.admission.AdmissionDecision;
import io.stockade.command.admission.AdmissionId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The decisions that the replies of reserve.lua and draw.lua stand for, as the hot path reads them.
 */
final class ReserveReply {

  /** The state of an intent the pre-queue's draw refused. */
  private static final String REFUSED = "REFUSED";

  private ReserveReply() {}

  /**
   * The decision a reply of reserve.lua stands for. A refusal names a line of {@code part} (the
   * lines the script was given); the decision names it by its index in {@code lines}, the whole
   * reservation's.
   */
  static AdmissionDecision decision(
      List<Object> reply, List<ReservationLine> lines, List<ReservationLine> part, long epoch) {
    int code = code(reply);
    boolean refused = code >= 4 && code <= 6 || code >= 8 && code <= 10 || code == 12;
    String skuId = refused ? part.get(number(reply, 1).intValue()).skuId() : null;
    int index = refused ? indexOf(lines, skuId) : -1;
    switch (code) {
      case 1:
        return new AdmissionDecision.Admitted(
            number(reply, 1), instant(reply, 2), instant(reply, 3), epoch);
      case 2:
        if (REFUSED.equals(String.valueOf(reply.get(4))) && reply.size() > 7) {
          // Refused by the draw: answered as the refusal it was.
          List<Object> refusal = new ArrayList<>();
          for (String number : String.valueOf(reply.get(7)).split(" ")) {
            refusal.add(Long.valueOf(number));
          }
          return decision(refusal, lines, part, epoch);
        }
        return new AdmissionDecision.Duplicate(
            number(reply, 1),
            instant(reply, 2),
            instant(reply, 3),
            String.valueOf(reply.get(4)),
            number(reply, 5) == 1,
            admittedIn(reply, epoch));
      case 3:
        return new AdmissionDecision.Reused();
      case 4:
        return new AdmissionDecision.Insufficient(skuId, index);
      case 5:
        return new AdmissionDecision.LimitExceeded(
            skuId, index, number(reply, 2), number(reply, 3));
      case 6:
        return new AdmissionDecision.UnknownSku(skuId, index);
      case 7:
        return new AdmissionDecision.RateLimited(
            number(reply, 1).intValue() - 1, Duration.ofMillis(number(reply, 2)));
      case 8:
        return new AdmissionDecision.SaleNotOpen(
            skuId, index, instant(reply, 2), instant(reply, 4));
      case 9:
        return new AdmissionDecision.SaleClosed(skuId, index, instant(reply, 2));
      case 10:
        return new AdmissionDecision.SalePaused(skuId, index);
      case 11:
        return new AdmissionDecision.Queued(instant(reply, 1), instant(reply, 2), null);
      case 12:
        return new AdmissionDecision.DrawInProgress(skuId, index, instant(reply, 2));
      default:
        throw new IllegalStateException("Unknown reply of reserve.lua " + reply);
    }
  }

  /**
   * The epoch of the admission a DUPLICATE reply names: the intent's, or {@code epoch} (the
   * session's) for an intent written before intents kept it.
   */
  static long admittedIn(List<Object> duplicate, long epoch) {
    long recorded = duplicate.size() > 6 ? number(duplicate, 6) : AdmissionId.UNKNOWN_EPOCH;
    return recorded == AdmissionId.UNKNOWN_EPOCH ? epoch : recorded;
  }

  private static int indexOf(List<ReservationLine> lines, String skuId) {
    for (int index = 0; index < lines.size(); index++) {
      if (lines.get(index).skuId().equals(skuId)) {
        return index;
      }
    }
    return -1;
  }
}
