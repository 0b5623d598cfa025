package io.stockade.platform.web;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * Limits on what a request may carry ({@code stockade.web.*}).
 *
 * @param maxBodySize the largest request body accepted; a larger one is refused with 413 before it
 *     is read. The largest reservation the defaults allow (100 lines) takes about 10 KB.
 */
@ConfigurationProperties("stockade.web")
record WebInputProperties(@DefaultValue("64KB") DataSize maxBodySize) {}
