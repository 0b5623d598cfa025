package io.stockade.client.feed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FilePositionStoreTest {

  @TempDir Path dir;

  @Test
  void startsAtTheBeginningWithoutAFile() {
    assertThat(new FilePositionStore(dir.resolve("feed.position")).load()).isZero();
  }

  @Test
  void keepsTheLastPositionSavedForTheNextStore() throws IOException {
    Path file = dir.resolve("orders").resolve("feed.position");
    FilePositionStore store = new FilePositionStore(file);
    store.save(41);
    store.save(1042);

    assertThat(new FilePositionStore(file).load()).isEqualTo(1042);
    assertThat(Files.readString(file)).isEqualTo("1042\n");
    try (var files = Files.list(file.getParent())) {
      assertThat(files.map(f -> f.getFileName().toString())).containsExactly("feed.position");
    }
  }

  @Test
  void refusesAFileThatHoldsNoPosition() throws IOException {
    Path file = Files.writeString(dir.resolve("feed.position"), "torn");

    assertThatThrownBy(() -> new FilePositionStore(file).load())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not a number");
  }
}
