package io.stockade.command.web;

import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

@Configuration(proxyBeanMethods = false)
class WebConfiguration {

  /** Right after the request ids, so that every later filter and handler writes through it. */
  @Bean
  FilterRegistrationBean<OneWriteResponses> oneWriteResponses() {
    FilterRegistrationBean<OneWriteResponses> registration =
        new FilterRegistrationBean<>(new OneWriteResponses());
    registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 1);
    return registration;
  }
}
