package io.stockade.platform.warmup;

import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.annotation.Validated;

/**
 * Settings of the warm-up ({@code stockade.warm-up.*}); their values are in {@code
 * stockade-platform.yml}.
 *
 * @param enabled {@code false}: the service reports ready without sending itself anything
 * @param maxRequests the warm-up ends once this many requests were answered
 * @param maxDuration or once this long has passed since the service started it, whichever first
 * @param concurrency requests in flight at once: few, so that the JIT's compilers have a share of
 *     the cores to compile the hot path while it runs
 * @param settleWindow how far back the JIT's compiling is looked at
 * @param settledCompilation or once the JIT's compilers spent less than this share of the last
 *     {@code settleWindow} compiling, whichever first; 0: the JIT is not looked at
 */
@ConfigurationProperties("stockade.warm-up")
@Validated
record WarmUpProperties(
    boolean enabled,
    @Min(0) long maxRequests,
    @NotNull Duration maxDuration,
    @Min(1) @Max(64) int concurrency,
    @NotNull Duration settleWindow,
    @DecimalMin("0") double settledCompilation) {}
