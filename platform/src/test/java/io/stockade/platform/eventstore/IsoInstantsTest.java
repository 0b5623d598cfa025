package io.stockade.platform.eventstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import org.axonframework.common.DateTimeUtils;
import org.junit.jupiter.api.Test;

/** The fast reading of instants reads what Axon's parser reads, and leaves it the rest. */
class IsoInstantsTest {

  private static final List<String> TEXTS =
      List.of(
          "2026-11-30T10:00:00Z",
          "2026-11-30T10:00:00.1Z",
          "2026-11-30T10:00:00.12Z",
          "2026-11-30T10:00:00.123Z",
          "2026-11-30T10:00:00.1234Z",
          "2026-11-30T10:00:00.123456Z",
          "2026-11-30T10:00:00.123456789Z",
          "2024-02-29T23:59:59.999999999Z",
          "1970-01-01T00:00:00Z",
          "1969-12-31T23:59:59.5Z",
          "0001-01-01T00:00:00Z",
          "9999-12-31T23:59:59Z",
          "2026-11-30T24:00:00Z",
          "2026-11-30T10:00:00.Z",
          "2016-12-31T23:59:60Z",
          "2026-11-30T10:00:00+01:00",
          "2026-11-30T10:00Z");

  @Test
  void readsWhatAxonReads() {
    for (String text : TEXTS) {
      Instant expected;
      try {
        expected = DateTimeUtils.parseInstant(text);
      } catch (DateTimeParseException unreadable) {
        assertThatThrownBy(() -> IsoInstants.parse(text))
            .as(text)
            .isInstanceOf(unreadable.getClass());
        continue;
      }
      assertThat(IsoInstants.parse(text)).as(text).isEqualTo(expected);
    }
  }

  @Test
  void refusesWhatAxonRefuses() {
    for (String text :
        List.of("2026-02-30T10:00:00Z", "2026-13-01T10:00:00Z", "2026-11-30T10:0:00Z", "x")) {
      assertThatThrownBy(() -> IsoInstants.parse(text))
          .as(text)
          .isInstanceOf(DateTimeParseException.class);
    }
  }

  @Test
  void jacksonReadsInstantsAsTheTimeModuleDoes() throws Exception {
    ObjectMapper plain = new ObjectMapper().registerModule(new JavaTimeModule());
    ObjectMapper fast =
        plain
            .copy()
            .registerModule(
                new SimpleModule().addDeserializer(Instant.class, new IsoInstants.Deserializer()));
    for (String json :
        List.of(
            "\"2026-11-30T10:00:00.123Z\"",
            "\"2026-11-30T10:00:00+01:00\"",
            "1764496800.123000000",
            "1764496800")) {
      assertThat(fast.readValue(json, Instant.class))
          .as(json)
          .isEqualTo(plain.readValue(json, Instant.class));
    }
  }
}
