package io.stockade.platform.concurrent;

import java.util.concurrent.ThreadFactory;

/** Thread factories for the services' own background work. */
public final class DaemonThreads {

  private DaemonThreads() {}

  /** Threads named {@code name} that do not keep the JVM alive. */
  public static ThreadFactory named(String name) {
    return runnable -> {
      Thread thread = new Thread(runnable, name);
      thread.setDaemon(true);
      return thread;
    };
  }
}
