package io.stockade.platform.web;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.web.servlet.HandlerExceptionResolver;
import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.type.LogicalType;

/**
 * What a request may carry, in every Stockade web application: bodies up to {@code
 * stockade.web.max-body-size}, and JSON values of the declared type only.
 */
@AutoConfiguration
@ConditionalOnWebApplication
@EnableConfigurationProperties(WebInputProperties.class)
public class WebInputConfiguration {

  @Bean
  FilterRegistrationBean<RequestBodyLimit> requestBodyLimit(
      WebInputProperties properties,
      @Qualifier("handlerExceptionResolver") HandlerExceptionResolver problems) {
    FilterRegistrationBean<RequestBodyLimit> registration =
        new FilterRegistrationBean<>(
            new RequestBodyLimit(properties.maxBodySize().toBytes(), problems));
    // Early, but after the filters that set up the request (encoding, observation).
    registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 10);
    return registration;
  }

  /**
   * Jackson turns {@code "5"}, {@code 5.7} and {@code true} into numbers and {@code 5} into a
   * string by default: an integer field takes only a JSON integer, a string field only a JSON
   * string, so a malformed request is refused rather than read as something it did not say.
   */
  @Bean
  JsonMapperBuilderCustomizer strictScalars() {
    return builder ->
        builder
            .withCoercionConfig(
                LogicalType.Integer,
                config ->
                    config
                        .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                        .setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail)
                        .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                        .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
            .withCoercionConfig(
                LogicalType.Textual,
                config ->
                    config
                        .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                        .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                        .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail));
  }
}
