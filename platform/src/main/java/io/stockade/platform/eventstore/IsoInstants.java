package io.stockade.platform.eventstore;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.datatype.jsr310.deser.InstantDeserializer;
import java.io.IOException;
import java.time.Instant;
import java.time.LocalDate;
import org.axonframework.common.DateTimeUtils;

/**
 * Instants as the event store writes them, {@code 2026-11-30T10:00:00.123Z}, read without a {@code
 * DateTimeFormatter}, whose parse is a third of a fold's decoding. Anything else (an offset, no
 * seconds, a number) is read by the usual parsers.
 */
public final class IsoInstants {

  private IsoInstants() {}

  /** The instant of an ISO-8601 text, as {@link DateTimeUtils#parseInstant} reads it. */
  public static Instant parse(CharSequence text) {
    Instant instant = fast(text);
    return instant != null ? instant : DateTimeUtils.parseInstant(text);
  }

  /** Jackson's reading of an instant, with {@link #parse}'s fast path for strings. */
  static final class Deserializer extends JsonDeserializer<Instant> {

    @Override
    public Instant deserialize(JsonParser parser, DeserializationContext context)
        throws IOException {
      if (parser.currentToken() == JsonToken.VALUE_STRING) {
        Instant instant = fast(parser.getText());
        if (instant != null) {
          return instant;
        }
      }
      return InstantDeserializer.INSTANT.deserialize(parser, context);
    }
  }

  /** {@code yyyy-MM-ddTHH:mm:ss[.f{1,9}]Z}, or null for any other text. */
  private static Instant fast(CharSequence text) {
    int length = text.length();
    if (length < 20
        || length > 30
        || length == 21
        || text.charAt(length - 1) != 'Z'
        || text.charAt(4) != '-'
        || text.charAt(7) != '-'
        || text.charAt(10) != 'T'
        || text.charAt(13) != ':'
        || text.charAt(16) != ':') {
      return null;
    }
    int year = digits(text, 0, 4);
    int month = digits(text, 5, 2);
    int day = digits(text, 8, 2);
    int hour = digits(text, 11, 2);
    int minute = digits(text, 14, 2);
    int second = digits(text, 17, 2);
    if ((year | month | day | hour | minute | second) < 0
        || month < 1
        || month > 12
        || day < 1
        || day > LocalDate.of(year, month, 1).lengthOfMonth()
        || hour > 23
        || minute > 59
        || second > 59) {
      return null;
    }
    int nanos = 0;
    if (length > 20) {
      if (text.charAt(19) != '.') {
        return null;
      }
      int fraction = length - 21;
      int value = digits(text, 20, fraction);
      if (value < 0) {
        return null;
      }
      nanos = value;
      for (int i = fraction; i < 9; i++) {
        nanos *= 10;
      }
    }
    long epochDay = LocalDate.of(year, month, day).toEpochDay();
    return Instant.ofEpochSecond(epochDay * 86_400 + hour * 3_600L + minute * 60L + second, nanos);
  }

  /** The number the {@code count} digits at {@code from} make; -1 if one is not a digit. */
  private static int digits(CharSequence text, int from, int count) {
    int value = 0;
    for (int i = from; i < from + count; i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }
}
