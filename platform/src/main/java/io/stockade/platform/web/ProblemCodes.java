package io.stockade.platform.web;

/**
 * The problem codes of both services' shared parts (bad input, tokens, bodies). Each is the last
 * part of a problem's {@code type} ({@code https://stockade.io/problems/<code>}) and is named here
 * once: the {@code @Problem} annotations that describe an endpoint's outcomes, the answers that
 * carry them and the metrics' reasons use these constants, and {@code ProblemCatalogueTest} fails
 * on a code written anywhere else or missing from {@code docs/api.md}.
 */
public final class ProblemCodes {

  public static final String INVALID_REQUEST = "invalid-request";

  public static final String UNAUTHORIZED = "unauthorized";

  public static final String FORBIDDEN = "forbidden";

  public static final String BODY_TOO_LARGE = "body-too-large";

  private ProblemCodes() {}
}
