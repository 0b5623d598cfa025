package io.stockade.client.feed;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * A position in a file of its own, as decimal text. Each save writes a temporary file beside it,
 * forces it to the disk and renames it over the file (atomically where the file system can): a
 * crash leaves the old position or the new one, never a torn one.
 */
public final class FilePositionStore implements PositionStore {

  private final Path file;
  private final Path temporary;

  public FilePositionStore(Path file) {
    this.file = file.toAbsolutePath();
    this.temporary = this.file.resolveSibling(this.file.getFileName() + ".tmp");
  }

  @Override
  public long load() {
    try {
      String text = Files.readString(file, StandardCharsets.UTF_8).trim();
      return Long.parseLong(text);
    } catch (NoSuchFileException none) {
      return 0;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the feed position in " + file, e);
    } catch (NumberFormatException e) {
      throw new IllegalStateException("The feed position in " + file + " is not a number", e);
    }
  }

  @Override
  public void save(long position) {
    if (position < 0) {
      throw new IllegalArgumentException("A position is 0 or more: " + position);
    }
    try {
      Files.createDirectories(file.getParent());
      // A stream, not a channel: an interrupt of the consumer's thread cannot cut the write.
      try (FileOutputStream out = new FileOutputStream(temporary.toFile())) {
        out.write((position + "\n").getBytes(StandardCharsets.UTF_8));
        out.getFD().sync();
      }
      try {
        Files.move(
            temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException notAtomic) {
        Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
      }
      forceDirectory();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot store the feed position in " + file, e);
    }
  }

  /** The rename itself to the disk, where the platform can force a directory (not Windows). */
  private void forceDirectory() {
    try (FileChannel directory = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
      directory.force(true);
    } catch (IOException | UnsupportedOperationException notForDirectories) {
      // The file's content is on the disk; only the rename may wait for the system's flush.
    }
  }

  /** The file. */
  public Path file() {
    return file;
  }
}
