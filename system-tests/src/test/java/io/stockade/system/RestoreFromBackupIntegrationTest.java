package io.stockade.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import io.stockade.client.CommandClient;
import io.stockade.client.QueryClient;
import io.stockade.client.ReservationLine;
import io.stockade.client.ReservationRequest;
import io.stockade.client.RetryPolicy;
import io.stockade.client.SkuRegistration;
import io.stockade.client.Stock;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;

/**
 * The backup and restore of docs/operations.md, end to end: a sale in progress on the packaged
 * services, its database dumped with {@code mariadb-dump --single-transaction} while they run,
 * restored into a new database, the services started on it with a new Redis. The gate is rebuilt
 * from the restored events (the new Redis holds no gate), the read models and the reconciliation
 * agree with it, and the sale goes on. What happened after the dump is not in the restored
 * database: the restored system knows nothing of it, and neither does its gate.
 *
 * <p>Needs the database server on 127.0.0.1:3306 (the suite's) and its {@code mariadb-dump} and
 * {@code mariadb} clients; skipped otherwise.
 */
class RestoreFromBackupIntegrationTest {

  private static final String RUN = UUID.randomUUID().toString().substring(0, 8);
  private static final String LIVE = "stockade_test_backup";
  private static final String RESTORED = "stockade_test_restored";
  private static final Duration PATIENCE = Duration.ofSeconds(90);

  /** The sale at the backup: 3,000 reservations of 5,000 units, 1,000 sold, 500 released. */
  private static final int STOCK = 5_000;

  private static final int RESERVED = 3_000;
  private static final int SOLD = 1_000;
  private static final int RELEASED = 500;
  private static final int HELD = RESERVED - SOLD - RELEASED;

  @Test
  void aRestoredDatabaseServesWithItsGateRebuiltAndReconciles() throws Exception {
    assumeThat(onPath("mariadb-dump") && onPath("mariadb")).as("mariadb-dump and mariadb").isTrue();
    String sku = "restore-" + RUN;
    Path dump = Files.createDirectories(SystemServices.WORK).resolve("backup-" + RUN + ".sql");

    try (ClientSystem live = ClientSystem.start(RUN, LIVE)) {
      assumeThat(live.databaseServer())
          .as("the database on the default port")
          .isEqualTo("127.0.0.1:3306");
      CommandClient admin = live.commands(RetryPolicy.DEFAULT, "admin");
      CommandClient client = live.commands(RetryPolicy.DEFAULT, "client");
      QueryClient reader = live.queries("reader");
      admin.registerSku(sku, SkuRegistration.of(STOCK).withPerUserLimit(5));
      // A sale at scale: every reservation of thousands, then confirms and releases of some.
      inParallel(RESERVED, i -> client.reserve(order("R-" + i, user(i))));
      inParallel(SOLD, i -> client.confirm(id("R-" + i)));
      inParallel(RELEASED, i -> client.release(id("R-" + (SOLD + i)), "CANCELLED"));
      awaitStock(reader, sku, STOCK - HELD - SOLD, HELD, SOLD);

      run(
          "mariadb-dump",
          "-h127.0.0.1",
          "-uroot",
          "--single-transaction",
          "--result-file=" + dump,
          LIVE);

      // After the backup: lost with the live database.
      client.reserve(order("R-after", user(RESERVED + 1)));
      client.confirm(id("R-after"));
    }

    run(
        "mariadb",
        "-h127.0.0.1",
        "-uroot",
        "-e",
        "DROP DATABASE IF EXISTS " + RESTORED + "; CREATE DATABASE " + RESTORED);
    run("mariadb", "-h127.0.0.1", "-uroot", RESTORED, "-e", "source " + dump);

    try (ClientSystem restored = ClientSystem.startOnExisting(RUN + "-r", RESTORED)) {
      CommandClient client = restored.commands(RetryPolicy.DEFAULT, "client");
      QueryClient reader = restored.queries("reader");
      // Ready means the gate is open: rebuilt from the restored events on the new Redis.
      assertThat(reader.gate().state()).isEqualTo("OPEN");
      awaitStock(reader, sku, STOCK - HELD - SOLD, HELD, SOLD);
      assertThat(reader.reservation(id("R-1")).status()).isEqualTo("CONFIRMED");
      assertThat(reader.reservation(id("R-" + (SOLD + 1))).status()).isEqualTo("RELEASED");
      assertThat(reader.reservation(id("R-" + RESERVED)).status()).isEqualTo("RESERVED");
      await()
          .atMost(PATIENCE)
          .pollInterval(Duration.ofMillis(500))
          .until(
              () -> reader.reconciliation(sku, true).skus().get(0).status(), "CONSISTENT"::equals);

      // The sale goes on: the held reservations are the gate's, and a new one is admitted.
      client.confirm(id("R-" + RESERVED));
      assertThat(client.reserve(order("R-new", user(RESERVED + 2))).status()).isEqualTo("RESERVED");
      awaitStock(reader, sku, STOCK - HELD - SOLD - 1, HELD, SOLD + 1);
      await()
          .atMost(PATIENCE)
          .pollInterval(Duration.ofMillis(500))
          .until(
              () -> reader.reconciliation(sku, true).skus().get(0).status(), "CONSISTENT"::equals);
    } finally {
      Files.deleteIfExists(dump);
    }
  }

  private static ReservationRequest order(String name, int user) {
    return ReservationRequest.of(
        id(name), "u-" + user + "-" + RUN, new ReservationLine("restore-" + RUN, 1));
  }

  /** Reservation {@code i}'s user: three reservations each, under the limit of five. */
  private static int user(int i) {
    return (i + 2) / 3;
  }

  /** Runs {@code call} for 1 to {@code count} on a few threads, as concurrent buyers would. */
  private static void inParallel(int count, IntConsumer call) throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> calls = new ArrayList<>();
      for (int i = 1; i <= count; i++) {
        int n = i;
        calls.add(threads.submit(() -> call.accept(n)));
      }
      for (Future<?> done : calls) {
        done.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
      }
    } finally {
      threads.shutdownNow();
    }
  }

  private static String id(String name) {
    return name + "-" + RUN;
  }

  private static void awaitStock(
      QueryClient reader, String sku, long available, long reserved, long sold) {
    await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .until(
            () -> reader.stock(sku),
            (Stock stock) ->
                stock.available() == available
                    && stock.reserved() == reserved
                    && stock.sold() == sold);
  }

  private static boolean onPath(String command) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (Files.isExecutable(Path.of(dir, command))) {
        return true;
      }
    }
    return false;
  }

  private static void run(String... command) throws IOException, InterruptedException {
    Path output = Files.createTempFile(SystemServices.WORK, "command", ".out");
    Process process =
        new ProcessBuilder(new ArrayList<>(List.of(command)))
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    if (!process.waitFor(5, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new IllegalStateException(String.join(" ", command) + " did not end in 5 minutes");
    }
    String printed = Files.readString(output);
    Files.deleteIfExists(output);
    if (process.exitValue() != 0) {
      throw new IllegalStateException(
          String.join(" ", command) + " exited " + process.exitValue() + ": " + printed);
    }
  }
}
