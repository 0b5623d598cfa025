package io.stockade.query.replay;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * {@code Stockade-Replay: <replayId>} on every response served while a replay rebuilds the read
 * models (contract 1.2): the answer comes from the models in use, which the rebuilt ones replace
 * when the replay is DONE.
 */
@Component
class ReplayHeader extends OncePerRequestFilter {

  static final String NAME = "Stockade-Replay";

  private final Replays replays;

  ReplayHeader(Replays replays) {
    this.replays = replays;
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    replays.inProgress().ifPresent(replayId -> response.setHeader(NAME, replayId));
    chain.doFilter(request, response);
  }
}
