package io.stockade.system;

import java.util.UUID;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * One {@link ClientSystem} for every test class of the Java client in a test run: started by the
 * first class that needs it, closed by JUnit when the run ends (the root store closes it), its
 * services' logs printed when a test fails.
 */
final class SharedClientSystem implements BeforeAllCallback, TestWatcher {

  /** A database of the client's tests alone: other suites use theirs on the same server. */
  static final String DATABASE = "stockade_test_client";

  /** This run's name: a suffix of the identifiers the tests create. */
  static final String RUN = UUID.randomUUID().toString().substring(0, 8);

  private static volatile ClientSystem system;

  static ClientSystem system() {
    return system;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    system =
        context
            .getRoot()
            .getStore(ExtensionContext.Namespace.GLOBAL)
            .getOrComputeIfAbsent(ClientSystem.class, key -> start(), ClientSystem.class);
  }

  private static ClientSystem start() {
    try {
      return ClientSystem.start(RUN, DATABASE);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("The services did not start", e);
    }
  }

  @Override
  public void testFailed(ExtensionContext context, Throwable cause) {
    if (system != null) {
      system.printLogs();
    }
  }
}
