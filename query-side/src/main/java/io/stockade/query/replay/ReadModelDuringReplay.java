package io.stockade.query.replay;

import io.stockade.platform.web.ProblemException;
import io.stockade.query.QueryProblems;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * While a replay rebuilds the read models, the endpoints that read them answer 503 {@code
 * replay-in-progress} with Retry-After, rather than numbers of a half-built model. The audit of a
 * reservation reads the event store and stays available, and so does the reconciliation: it still
 * compares the gate with the events, and reports the read model as REPLAYING.
 */
@Configuration(proxyBeanMethods = false)
class ReadModelDuringReplay implements WebMvcConfigurer {

  private final Replays replays;

  ReadModelDuringReplay(Replays replays) {
    this.replays = replays;
  }

  @Override
  public void addInterceptors(InterceptorRegistry registry) {
    registry
        .addInterceptor(
            new HandlerInterceptor() {
              @Override
              public boolean preHandle(
                  HttpServletRequest request, HttpServletResponse response, Object handler) {
                if (replays.running()) {
                  throw ProblemException.unavailable(
                      QueryProblems.REPLAY_IN_PROGRESS,
                      "The read models are being rebuilt from the event stream; retry shortly.",
                      1);
                }
                return true;
              }
            })
        .addPathPatterns("/api/stock/**", "/api/reservations/**", "/api/audit/skus/**");
  }
}
