package io.stockade.system;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * A service's executable jar as the reactor packaged it: {@code ../<module>/target/<module>*.jar}
 * beside this module, the one whose manifest names a {@code Start-Class} (not the {@code
 * .original}, {@code -classes}, {@code -sources} or {@code -tests} jars). Refused when it is older
 * than the module's compiled classes, so that a test never launches an outdated service.
 */
final class ServiceJar {

  private ServiceJar() {}

  static Path of(String module) {
    Path moduleDir = baseDir().resolve("..").resolve(module).normalize();
    Path target = moduleDir.resolve("target");
    List<Path> executable;
    try (Stream<Path> files = Files.list(target)) {
      executable =
          files
              .filter(file -> isCandidate(module, file.getFileName().toString()))
              .filter(ServiceJar::isExecutable)
              .toList();
    } catch (IOException e) {
      throw new IllegalStateException(
          "No "
              + target
              + ": build through the reactor, e.g. ./mvnw -B -pl system-tests -am verify",
          e);
    }
    if (executable.size() != 1) {
      throw new IllegalStateException(
          "Expected one executable jar of "
              + module
              + " in "
              + target
              + ", found "
              + executable
              + ": build through the reactor, e.g. ./mvnw -B -pl system-tests -am verify");
    }
    Path jar = executable.get(0);
    FileTime classes = newest(moduleDir.resolve("target").resolve("classes"));
    if (classes != null && classes.compareTo(lastModified(jar)) > 0) {
      throw new IllegalStateException(
          jar
              + " is older than "
              + module
              + "'s classes: package it again (./mvnw -B -pl system-tests -am verify)");
    }
    return jar;
  }

  /** This module's folder. */
  static Path baseDir() {
    // Surefire sets basedir to this module's folder; an IDE usually runs in it.
    String basedir = System.getProperty("basedir");
    return Path.of(basedir != null ? basedir : System.getProperty("user.dir")).toAbsolutePath();
  }

  private static boolean isCandidate(String module, String name) {
    return name.startsWith(module)
        && name.endsWith(".jar")
        && !name.endsWith("-sources.jar")
        && !name.endsWith("-javadoc.jar")
        && !name.endsWith("-tests.jar")
        && !name.endsWith("-classes.jar");
  }

  private static boolean isExecutable(Path jar) {
    try (JarFile file = new JarFile(jar.toFile())) {
      return file.getManifest() != null
          && file.getManifest().getMainAttributes().getValue("Start-Class") != null;
    } catch (IOException notAJar) {
      return false;
    }
  }

  /** The newest modification time of a file under {@code dir}, or null when there is none. */
  private static FileTime newest(Path dir) {
    if (!Files.isDirectory(dir)) {
      return null;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      return files
          .filter(Files::isRegularFile)
          .map(ServiceJar::lastModified)
          .max(FileTime::compareTo)
          .orElse(null);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static FileTime lastModified(Path file) {
    try {
      return Files.getLastModifiedTime(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
