package io.stockade.query.dashboard;

import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.config.annotation.ViewControllerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * The operator's dashboard: static files under {@code /dashboard/} ({@code
 * src/main/resources/static/dashboard}) that call the query side's HTTP API from the browser.
 * {@code /} and {@code /dashboard} lead to {@code /dashboard/}, whose page is its {@code
 * index.html}; the page's relative links need the trailing slash.
 */
@Configuration(proxyBeanMethods = false)
class DashboardConfiguration implements WebMvcConfigurer {

  @Override
  public void addViewControllers(ViewControllerRegistry registry) {
    registry.addRedirectViewController("/", "/dashboard/");
    registry.addRedirectViewController("/dashboard", "/dashboard/");
    registry.addViewController("/dashboard/").setViewName("forward:/dashboard/index.html");
  }
}
