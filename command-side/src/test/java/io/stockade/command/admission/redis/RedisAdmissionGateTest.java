package io.stockade.command.admission.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.admission.Admission;
import io.stockade.command.admission.AdmissionDecision;
import io.stockade.command.admission.AdmissionId;
import io.stockade.command.admission.PendingAdmissions;
import io.stockade.command.admission.ReservationTransitions;
import io.stockade.command.admission.ReservationTransitions.Transition;
import io.stockade.command.admission.SkuStock.Replenishment;
import io.stockade.localinfra.EmbeddedRedis;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/** What each gate operation does to the counters, the intent records and the allowances. */
class RedisAdmissionGateTest {

  private static final Duration HOLD = Duration.ofMinutes(15);
  private static final Instant NOW = Instant.parse("2026-11-30T10:00:00Z");
  private static final Duration RETENTION = Duration.ofHours(24);

  /**
   * The lines the gate is told when it confirms, releases or withdraws: they only say which
   * partitions hold the reservation, and this gate has one.
   */
  private static final List<ReservationLine> IN_ONE_PARTITION =
      List.of(new ReservationLine("any", 1));

  private final StringRedisTemplate redis = TestRedis.shared();
  private final WholeGate gate = TestRedis.gate(redis, RETENTION);
  private final String run = UUID.randomUUID().toString().substring(0, 8);

  @Test
  void admitsWhenStockEqualsTheQuantity() {
    String sku = sku("exact");
    gate.register(sku, 5, null, 1);

    AdmissionDecision decision = gate.reserve(admission("O-" + run, "u-1", line(sku, 5)));

    assertThat(decision).isInstanceOf(AdmissionDecision.Admitted.class);
    AdmissionDecision.Admitted admitted = (AdmissionDecision.Admitted) decision;
    assertThat(admitted.admittedAt()).isEqualTo(NOW);
    assertThat(admitted.expiresAt()).isEqualTo(NOW.plus(HOLD));
    assertThat(counters(sku)).containsEntry("available", "0").containsEntry("reserved", "5");
  }

  /**
   * An admission's pending entry is timed by Redis's clock, whatever the admitting instance's clock
   * says (the record keeps that one's times), and it is listed as pending for a bound by the same
   * Redis clock.
   */
  @Test
  void pendingEntriesAreTimedByRedisClockNotTheAdmittingInstances() {
    String sku = sku("clocks");
    gate.register(sku, 5, null, 1);
    Instant ahead = Instant.now().plus(Duration.ofSeconds(15)).truncatedTo(ChronoUnit.MILLIS);
    Instant behind = Instant.now().minus(Duration.ofSeconds(15)).truncatedTo(ChronoUnit.MILLIS);
    String early = "E-" + run;
    String late = "L-" + run;

    long before = redisTime();
    AdmissionDecision.Admitted fromAhead =
        (AdmissionDecision.Admitted)
            gate.reserve(new Admission(late, "u-1", List.of(line(sku, 1)), HOLD, ahead));
    AdmissionDecision.Admitted fromBehind =
        (AdmissionDecision.Admitted)
            gate.reserve(new Admission(early, "u-2", List.of(line(sku, 1)), HOLD, behind));
    long after = redisTime();

    assertThat(fromAhead.admittedAt()).isEqualTo(ahead);
    assertThat(fromBehind.expiresAt()).isEqualTo(behind.plus(HOLD));
    for (String id : List.of(early, late)) {
      assertThat(
              redis
                  .opsForZSet()
                  .score(TestRedis.PARTITION.pending(), TestRedis.PARTITION.intent(id)))
          .as("pending score of %s, by Redis's TIME", id)
          .isBetween((double) before, (double) after);
    }
    assertThat(gate.pendingFor(Duration.ofSeconds(10), 100_000))
        .as("younger than the bound by Redis's clock")
        .doesNotContain(
            new PendingAdmissions.Pending(early, 0), new PendingAdmissions.Pending(late, 0));
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(gate.pendingFor(Duration.ofMillis(100), 100_000))
                    .contains(
                        new PendingAdmissions.Pending(early, 0),
                        new PendingAdmissions.Pending(late, 0)));
  }

  @Test
  void refusesWhenStockIsOneShortAndChangesNothing() {
    String sku = sku("short");
    gate.register(sku, 4, null, 1);
    List<String> keys = keysOf(sku, "O-" + run);
    Map<String, String> before = dump(keys);

    AdmissionDecision decision = gate.reserve(admission("O-" + run, "u-1", line(sku, 5)));

    assertThat(decision).isEqualTo(new AdmissionDecision.Insufficient(sku, 0));
    assertThat(dump(keys)).isEqualTo(before);
  }

  @Test
  void reportsTheFirstFailingLineAfterMerging() {
    String plenty = sku("plenty");
    String scarce = sku("scarce");
    gate.register(plenty, 10, null, 1);
    gate.register(scarce, 1, null, 1);

    assertThat(gate.reserve(admission("O-" + run, "u-1", line(plenty, 1), line(scarce, 2))))
        .isEqualTo(new AdmissionDecision.Insufficient(scarce, 1));
    assertThat(
            gate.reserve(
                admission("O-" + run + "-2", "u-1", line(plenty, 1), line("nope-" + run, 1))))
        .isEqualTo(new AdmissionDecision.UnknownSku("nope-" + run, 1));
    assertThat(counters(plenty)).containsEntry("available", "10");
  }

  @Test
  void aRefusedReservationCanBeRetriedAsAFreshAttempt() {
    String sku = sku("later");
    gate.register(sku, 1, null, 1);
    assertThat(gate.reserve(admission("O-" + run, "u-1", line(sku, 2))))
        .isInstanceOf(AdmissionDecision.Insufficient.class);
    gate.replenish(sku, "R-" + run, 1);

    assertThat(gate.reserve(admission("O-" + run, "u-1", line(sku, 2))))
        .isInstanceOf(AdmissionDecision.Admitted.class);
  }

  @Test
  void aKnownIdWithOtherContentIsReused() {
    String sku = sku("reused");
    gate.register(sku, 10, null, 1);
    gate.reserve(admission("O-" + run, "u-1", line(sku, 1)));

    assertThat(gate.reserve(admission("O-" + run, "u-1", line(sku, 2))))
        .isEqualTo(new AdmissionDecision.Reused());
    assertThat(gate.reserve(admission("O-" + run, "u-2", line(sku, 1))))
        .isEqualTo(new AdmissionDecision.Reused());
    assertThat(counters(sku)).containsEntry("available", "9");
  }

  @Test
  void confirmTurnsReservedIntoSoldOnceAndKeepsTheAllowanceTaken() {
    String sku = sku("confirm");
    gate.register(sku, 10, 3, 1);
    AdmissionId admitted = admitted(admission("O-" + run, "u-1", line(sku, 2)));

    assertThat(gate.confirm("O-" + run, admitted, IN_ONE_PARTITION)).isEqualTo(Transition.DONE);
    assertThat(gate.confirm("O-" + run, admitted, IN_ONE_PARTITION))
        .isEqualTo(Transition.ALREADY_DONE);

    assertThat(counters(sku))
        .containsEntry("available", "8")
        .containsEntry("reserved", "0")
        .containsEntry("sold", "2");
    assertThat(gate.reserve(admission("O-" + run + "-2", "u-1", line(sku, 2))))
        .isEqualTo(new AdmissionDecision.LimitExceeded(sku, 0, 3, 2));
    assertThat(gate.release("O-" + run, admitted, IN_ONE_PARTITION, "CANCELLED"))
        .isEqualTo(Transition.NOT_ACTIVE);
    assertThat(counters(sku)).containsEntry("sold", "2").containsEntry("available", "8");
  }

  @Test
  void aPartialConfirmationSellsWhatItNamesAndGivesTheRestAndItsAllowanceBackInOneStep() {
    String kept = sku("kept");
    String dropped = sku("dropped");
    gate.register(kept, 10, 3, 1);
    gate.register(dropped, 10, 3, 1);
    AdmissionId admitted = admitted(admission("O-" + run, "u-1", line(kept, 3), line(dropped, 2)));
    List<ReservationLine> reserved = List.of(line(kept, 3), line(dropped, 2));

    assertThat(gate.confirm("O-" + run, admitted, reserved, List.of(line(kept, 1))))
        .isEqualTo(Transition.DONE);
    assertThat(gate.confirm("O-" + run, admitted, reserved, List.of(line(kept, 1))))
        .isEqualTo(Transition.ALREADY_DONE);

    assertThat(counters(kept))
        .containsEntry("available", "9")
        .containsEntry("reserved", "0")
        .containsEntry("sold", "1");
    assertThat(counters(dropped))
        .containsEntry("available", "10")
        .containsEntry("reserved", "0")
        .containsEntry("sold", "0");
    assertThat(redis.opsForHash().get(TestRedis.LAYOUT.holders(kept), "u-1")).isEqualTo("1");
    assertThat(redis.opsForHash().get(TestRedis.LAYOUT.holders(dropped), "u-1")).isNull();
    assertThat(redis.opsForHash().entries(TestRedis.PARTITION.intent("O-" + run)))
        .containsEntry("state", "CONFIRMED")
        .containsEntry("lines", kept + " 3 " + dropped + " 2")
        .containsEntry("confirmed", kept + " 1 " + dropped + " 0");
    // The allowance given back: 2 more of the kept SKU (limit 3, 1 sold), 3 of the other.
    assertThat(gate.reserve(admission("O-" + run + "-2", "u-1", line(kept, 2), line(dropped, 3))))
        .isInstanceOf(AdmissionDecision.Admitted.class);
  }

  @Test
  void aPartialConfirmationOfMoreThanReservedOrOfAnotherSkuIsAnErrorAndChangesNothing() {
    String sku = sku("over");
    gate.register(sku, 10, null, 1);
    AdmissionId admitted = admitted(admission("O-" + run, "u-1", line(sku, 2)));

    assertThatThrownBy(
            () -> gate.confirm("O-" + run, admitted, List.of(line(sku, 2)), List.of(line(sku, 3))))
        .isInstanceOf(GateScriptException.class);
    assertThatThrownBy(
            () ->
                gate.confirm(
                    "O-" + run,
                    admitted,
                    List.of(line(sku, 2)),
                    List.of(line(sku, 1), line("other-" + run, 1))))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(counters(sku)).containsEntry("reserved", "2").containsEntry("sold", "0");
    assertThat(redis.opsForHash().get(TestRedis.PARTITION.intent("O-" + run), "state"))
        .isEqualTo("RESERVED");
  }

  @Test
  void anExtensionMovesTheHoldARetryIsAnsweredWithOnlyForwardAndOnlyWhileReserved() {
    String sku = sku("extend");
    gate.register(sku, 10, null, 1);
    Admission admission = admission("O-" + run, "u-1", line(sku, 2));
    AdmissionId admitted = admitted(admission);
    Instant later = NOW.plus(HOLD).plus(Duration.ofMinutes(10));

    assertThat(gate.extend("O-" + run, admitted, IN_ONE_PARTITION, later))
        .isEqualTo(Transition.DONE);
    assertThat(gate.extend("O-" + run, admitted, IN_ONE_PARTITION, later.minusSeconds(60)))
        .isEqualTo(Transition.ALREADY_DONE);
    assertThat(
            gate.extend(
                "O-" + run,
                new AdmissionId(admitted.sequence() + 1, admitted.gateEpoch()),
                IN_ONE_PARTITION,
                later.plusSeconds(60)))
        .isEqualTo(Transition.OTHER_ADMISSION);
    assertThat(((AdmissionDecision.Duplicate) gate.reserve(admission)).expiresAt())
        .as("a retry of the reservation, answered with the hold as extended")
        .isEqualTo(later);
    assertThat(counters(sku)).containsEntry("reserved", "2").containsEntry("available", "8");

    gate.confirm("O-" + run, admitted, IN_ONE_PARTITION);
    assertThat(gate.extend("O-" + run, admitted, IN_ONE_PARTITION, later.plusSeconds(60)))
        .isEqualTo(Transition.NOT_ACTIVE);
    assertThat(gate.extend("nope-" + run, admitted, IN_ONE_PARTITION, later))
        .isEqualTo(Transition.UNKNOWN);
  }

  @Test
  void releaseReturnsUnitsAndTheAllowanceOnce() {
    String sku = sku("release");
    gate.register(sku, 10, 2, 1);
    AdmissionId admitted = admitted(admission("O-" + run, "u-1", line(sku, 2)));

    assertThat(gate.release("O-" + run, admitted, IN_ONE_PARTITION, "EXPIRED"))
        .isEqualTo(Transition.DONE);
    assertThat(gate.release("O-" + run, admitted, IN_ONE_PARTITION, "EXPIRED"))
        .isEqualTo(Transition.ALREADY_DONE);

    assertThat(counters(sku))
        .containsEntry("available", "10")
        .containsEntry("reserved", "0")
        .containsEntry("sold", "0");
    assertThat(redis.opsForHash().get(TestRedis.PARTITION.intent("O-" + run), "reason"))
        .isEqualTo("EXPIRED");
    assertThat(redis.opsForHash().hasKey(TestRedis.LAYOUT.holders(sku), "u-1")).isFalse();
    assertThat(gate.confirm("O-" + run, admitted, IN_ONE_PARTITION))
        .isEqualTo(Transition.NOT_ACTIVE);
    assertThat(gate.reserve(admission("O-" + run + "-2", "u-1", line(sku, 2))))
        .isInstanceOf(AdmissionDecision.Admitted.class);
  }

  @Test
  void aWithdrawnAdmissionGivesItsUnitsBackOnceItsLastRecorderLeaves() {
    String sku = sku("withdrawn");
    gate.register(sku, 5, 3, 1);
    Admission admission = admission("O-" + run, "u-1", line(sku, 2));
    AdmissionDecision.Admitted admitted = (AdmissionDecision.Admitted) gate.reserve(admission);
    // A retry while the first request is still storing it: a second recorder.
    AdmissionDecision.Duplicate retry = (AdmissionDecision.Duplicate) gate.reserve(admission);
    assertThat(retry.recording()).isTrue();

    assertThat(
            gate.withdraw(
                "O-" + run,
                new AdmissionId(admitted.sequence() + 1, admitted.gateEpoch()),
                IN_ONE_PARTITION))
        .as("another admission of the id")
        .isEqualTo(ReservationTransitions.Withdrawal.OTHER_ADMISSION);
    assertThat(
            gate.withdraw(
                "O-" + run,
                new AdmissionId(admitted.sequence(), admitted.gateEpoch() + 1),
                IN_ONE_PARTITION))
        .as("an admission of another epoch")
        .isEqualTo(ReservationTransitions.Withdrawal.OTHER_ADMISSION);
    assertThat(gate.withdraw("O-" + run, admitted.admission(), IN_ONE_PARTITION))
        .isEqualTo(ReservationTransitions.Withdrawal.OTHERS_RECORDING);
    assertThat(counters(sku)).containsEntry("available", "3");
    assertThat(gate.withdraw("O-" + run, admitted.admission(), IN_ONE_PARTITION))
        .isEqualTo(ReservationTransitions.Withdrawal.WITHDRAWN);
    // The decision log: admitted, then given back with no event to record it.
    assertThat(
            redis
                .opsForStream()
                .range(
                    TestRedis.PARTITION.decisions(),
                    org.springframework.data.domain.Range.unbounded())
                .stream()
                .map(entry -> String.valueOf(entry.getValue().get("d")).split(" ", 3)[2])
                .filter(entry -> entry.contains(" O-" + run + " "))
                .toList())
        .containsExactly(
            "A u-1 O-" + run + " " + sku + " 2 3", "W u-1 O-" + run + " " + sku + " 2 5");

    assertThat(counters(sku)).containsEntry("available", "5").containsEntry("reserved", "0");
    assertThat(redis.opsForHash().get(TestRedis.LAYOUT.holders(sku), "u-1")).isNull();
    assertThat(redis.hasKey(TestRedis.PARTITION.intent("O-" + run))).isFalse();
    assertThat(
            redis
                .opsForZSet()
                .score(TestRedis.PARTITION.pending(), TestRedis.PARTITION.intent("O-" + run)))
        .isNull();
    assertThat(gate.withdraw("O-" + run, admitted.admission(), IN_ONE_PARTITION))
        .isEqualTo(ReservationTransitions.Withdrawal.UNKNOWN);
    assertThat(gate.reserve(admission))
        .as("a retry after the withdrawal is a fresh admission")
        .isInstanceOf(AdmissionDecision.Admitted.class);
  }

  @Test
  void aRecordedOrEndedAdmissionIsNotWithdrawn() {
    String sku = sku("kept");
    gate.register(sku, 5, null, 1);
    AdmissionDecision.Admitted recorded =
        (AdmissionDecision.Admitted) gate.reserve(admission("O-" + run, "u-1", line(sku, 1)));
    gate.recorded("O-" + run, recorded.admission(), IN_ONE_PARTITION);
    AdmissionDecision.Admitted released =
        (AdmissionDecision.Admitted) gate.reserve(admission("P-" + run, "u-1", line(sku, 1)));
    gate.release("P-" + run, released.admission(), IN_ONE_PARTITION, "CANCELLED");

    assertThat(gate.withdraw("O-" + run, recorded.admission(), IN_ONE_PARTITION))
        .isEqualTo(ReservationTransitions.Withdrawal.NOT_WITHDRAWN);
    assertThat(gate.withdraw("P-" + run, released.admission(), IN_ONE_PARTITION))
        .isEqualTo(ReservationTransitions.Withdrawal.NOT_WITHDRAWN);
    assertThat(counters(sku)).containsEntry("available", "4").containsEntry("reserved", "1");
    assertThat(
            ((AdmissionDecision.Duplicate) gate.reserve(admission("O-" + run, "u-1", line(sku, 1))))
                .recording())
        .as("a stored reservation's retry does not store it again")
        .isFalse();
  }

  @Test
  void unknownReservationsCannotBeConfirmedOrReleased() {
    AdmissionId any = new AdmissionId(1024, TestRedis.epoch(redis));
    assertThat(gate.confirm("nope-" + run, any, IN_ONE_PARTITION)).isEqualTo(Transition.UNKNOWN);
    assertThat(gate.release("nope-" + run, any, IN_ONE_PARTITION, "CANCELLED"))
        .isEqualTo(Transition.UNKNOWN);
  }

  @Test
  void finishedIntentsExpireAfterTheRetentionAndLiveOnesNever() {
    String sku = sku("retention");
    gate.register(sku, 10, null, 1);
    gate.reserve(admission("O-" + run + "-live", "u-1", line(sku, 1)));
    AdmissionId sold = admitted(admission("O-" + run + "-sold", "u-1", line(sku, 1)));
    AdmissionId gone = admitted(admission("O-" + run + "-gone", "u-1", line(sku, 1)));

    gate.confirm("O-" + run + "-sold", sold, IN_ONE_PARTITION);
    gate.release("O-" + run + "-gone", gone, IN_ONE_PARTITION, "CANCELLED");

    assertThat(ttl("O-" + run + "-live")).isEqualTo(-1);
    assertThat(ttl("O-" + run + "-sold")).isPositive().isLessThanOrEqualTo(RETENTION.toMillis());
    assertThat(ttl("O-" + run + "-gone")).isPositive().isLessThanOrEqualTo(RETENTION.toMillis());
  }

  @Test
  void replenishesOncePerReplenishmentId() {
    String sku = sku("replenish");
    gate.register(sku, 1, null, 1);

    assertThat(gate.replenish(sku, "R-1", 5)).isEqualTo(Replenishment.APPLIED);
    assertThat(gate.replenish(sku, "R-1", 5)).isEqualTo(Replenishment.DUPLICATE);
    assertThat(gate.replenish(sku, "R-1", 6)).isEqualTo(Replenishment.CONFLICT);
    assertThat(gate.replenish("nope-" + run, "R-1", 5)).isEqualTo(Replenishment.UNKNOWN_SKU);
    assertThat(counters(sku)).containsEntry("available", "6");
  }

  @Test
  void registeringTwiceKeepsTheFirstCounters() {
    String sku = sku("register");
    gate.register(sku, 5, 2, 1);
    gate.reserve(admission("O-" + run, "u-1", line(sku, 1)));

    gate.register(sku, 5, 2, 1);

    assertThat(counters(sku))
        .containsEntry("available", "4")
        .containsEntry("reserved", "1")
        .containsEntry("limit", "2");
  }

  @Test
  void survivesAFlushedScriptCache() {
    String sku = sku("flushed");
    gate.register(sku, 5, null, 1);
    redis.execute(
        (RedisConnection connection) -> {
          connection.scriptingCommands().scriptFlush();
          return null;
        });

    assertThat(gate.reserve(admission("O-" + run, "u-1", line(sku, 1))))
        .isInstanceOf(AdmissionDecision.Admitted.class);
  }

  @Test
  void answersUnavailableWhileRedisIsDownAndWorksAgainAfterARestart() {
    try (EmbeddedRedis own = EmbeddedRedis.start(ownDir())) {
      StringRedisTemplate template =
          TestRedis.template("127.0.0.1", own.port(), Duration.ofMillis(500));
      WholeGate ownGate = TestRedis.gate(template, RETENTION);
      String sku = sku("restart");
      ownGate.register(sku, 5, null, 1);
      AdmissionDecision first = ownGate.reserve(admission("O-" + run, "u-1", line(sku, 1)));
      assertThat(first).isInstanceOf(AdmissionDecision.Admitted.class);
      AdmissionId admitted = ((AdmissionDecision.Admitted) first).admission();

      own.stop();
      AdmissionDecision whileDown =
          assertTimeoutPreemptively(
              Duration.ofSeconds(20),
              () -> ownGate.reserve(admission("O-" + run + "-2", "u-1", line(sku, 1))));
      assertThat(whileDown).isInstanceOf(AdmissionDecision.Unavailable.class);
      assertThat(ownGate.confirm("O-" + run, admitted, IN_ONE_PARTITION))
          .isEqualTo(Transition.UNAVAILABLE);

      own.start();
      // A restarted Redis has an empty script cache; its data came back from the AOF. The
      // client reconnects by itself; until it has, calls are refused without being queued.
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> ownGate.reserve(admission("O-" + run + "-3", "u-1", line(sku, 1))),
              AdmissionDecision.Admitted.class::isInstance);
      assertThat(template.opsForHash().get(TestRedis.LAYOUT.counters(sku), "available"))
          .isEqualTo("3");
    }
  }

  @Test
  void answersUnavailableWhenRedisDoesNotAnswerInTime() throws IOException {
    try (ServerSocket silent = new ServerSocket(0)) {
      List<Socket> accepted = new ArrayList<>();
      Thread acceptor =
          new Thread(
              () -> {
                try {
                  while (true) {
                    accepted.add(silent.accept());
                  }
                } catch (IOException closed) {
                  // the test is over
                }
              });
      acceptor.setDaemon(true);
      acceptor.start();
      WholeGate silentGate =
          TestRedis.gate(
              TestRedis.template("127.0.0.1", silent.getLocalPort(), Duration.ofMillis(300)),
              RETENTION);

      AdmissionDecision decision =
          assertTimeoutPreemptively(
              Duration.ofSeconds(20),
              () -> silentGate.reserve(admission("O-" + run, "u-1", line("any", 1))));

      assertThat(decision).isInstanceOf(AdmissionDecision.Unavailable.class);
      assertThat(silentGate.replenish("any", "R-1", 1)).isEqualTo(Replenishment.UNAVAILABLE);
    }
  }

  /**
   * A session ends by closing its connection while requests that took it may still be at work:
   * their calls meet a stopped connection factory. That is the gate closed (a 503), not a bug (a
   * 500); only a session still current that fails this way is one.
   */
  @Test
  void aSessionClosedDuringACallAnswersUnavailable() {
    LettuceConnectionFactory shared = (LettuceConnectionFactory) redis.getConnectionFactory();
    StringRedisTemplate own =
        TestRedis.template(shared.getHostName(), shared.getPort(), Duration.ofSeconds(5));
    String sku = sku("closing");
    gate.register(sku, 5, null, 1);
    GateSession closing = new GateSession(own, TestRedis.epoch(redis));
    ((LettuceConnectionFactory) own.getConnectionFactory()).destroy();
    List<GateSession> handedOut = new ArrayList<>();
    GateSessions endedAfterTakingIt =
        new GateSessions() {
          @Override
          public GateSession current() {
            // The request takes the session; the next look finds the gate closed.
            GateSession current = handedOut.isEmpty() ? closing : null;
            handedOut.add(closing);
            return current;
          }

          @Override
          public void lost(GateSession session) {}
        };
    WholeGate closingGate =
        WholeGate.of(
            GateOperations.wire(
                endedAfterTakingIt, TestRedis.LAYOUT, TestRedis.properties(RETENTION)));

    assertThat(closingGate.reserve(admission("O-" + run, "u-1", line(sku, 1))))
        .isInstanceOf(AdmissionDecision.Unavailable.class);
    assertThat(counters(sku)).containsEntry("available", "5");

    WholeGate stillCurrent =
        WholeGate.of(
            GateOperations.wire(
                new GateSessions() {
                  @Override
                  public GateSession current() {
                    return closing;
                  }

                  @Override
                  public void lost(GateSession session) {}
                },
                TestRedis.LAYOUT,
                TestRedis.properties(RETENTION)));
    assertThatThrownBy(() -> stillCurrent.reserve(admission("O2-" + run, "u-1", line(sku, 1))))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aKeyOfTheWrongTypeIsAnErrorAndChangesNothing() {
    String sku = sku("wrongtype");
    gate.register(sku, 5, null, 1);
    redis.opsForValue().set(TestRedis.LAYOUT.holders(sku), "not a hash");
    List<String> keys = keysOf(sku, "O-" + run);
    Map<String, String> before = dump(keys);

    assertThatThrownBy(() -> gate.reserve(admission("O-" + run, "u-1", line(sku, 1))))
        .isInstanceOf(GateScriptException.class)
        .hasMessageContaining("ERR_TYPE");
    assertThat(dump(keys)).isEqualTo(before);
  }

  private String sku(String name) {
    return name + "-" + run;
  }

  /** Admits it, which the test expects; the admission the gate's later steps name. */
  private AdmissionId admitted(Admission admission) {
    AdmissionDecision decision = gate.reserve(admission);
    assertThat(decision).isInstanceOf(AdmissionDecision.Admitted.class);
    return ((AdmissionDecision.Admitted) decision).admission();
  }

  private static Admission admission(String id, String user, ReservationLine... lines) {
    return new Admission(id, user, List.of(lines), HOLD, NOW);
  }

  private static ReservationLine line(String sku, int quantity) {
    return new ReservationLine(sku, quantity);
  }

  /** Redis's clock, epoch milliseconds. */
  private long redisTime() {
    return redis.execute((RedisCallback<Long>) connection -> connection.serverCommands().time());
  }

  private Map<Object, Object> counters(String sku) {
    return redis.opsForHash().entries(TestRedis.LAYOUT.counters(sku));
  }

  private long ttl(String reservationId) {
    return redis.getExpire(
        TestRedis.PARTITION.intent(reservationId), java.util.concurrent.TimeUnit.MILLISECONDS);
  }

  private static List<String> keysOf(String sku, String reservationId) {
    return List.of(
        TestRedis.LAYOUT.counters(sku),
        TestRedis.LAYOUT.holders(sku),
        TestRedis.LAYOUT.replenishments(sku),
        TestRedis.PARTITION.intent(reservationId));
  }

  /**
   * Every key's type and serialized value: equal dumps mean nothing changed. The admission sequence
   * is left out: other tests share it.
   */
  private Map<String, String> dump(List<String> keys) {
    return GateKeyDump.of(redis, keys);
  }

  private static Path ownDir() {
    return Path.of(System.getProperty("java.io.tmpdir"), "gate-redis-" + UUID.randomUUID());
  }
}
