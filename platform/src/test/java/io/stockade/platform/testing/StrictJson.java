package io.stockade.platform.testing;

import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads the services' answers as they are on the wire: an object that names a member twice (a
 * problem with an extension called {@code status}, say) is refused rather than read as its last
 * value, which is what most clients would see.
 */
public final class StrictJson {

  private static final ObjectMapper MAPPER =
      JsonMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

  private StrictJson() {}

  /** A mapper that fails on a duplicate member. */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /** The tree of a raw body; fails on a duplicate member, anywhere in it. */
  public static JsonNode read(String raw) {
    return MAPPER.readTree(raw);
  }
}
