package io.stockade.query.replay;

import io.stockade.platform.openapi.Problem;
import io.stockade.platform.web.ProblemException;
import io.stockade.query.QueryProblems;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.validation.constraints.Pattern;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Starts a rebuild of the read models from the event stream, and reports its progress: on any
 * instance, whichever one it was requested on.
 */
@RestController
@RequestMapping("/api/replays")
class ReplayController {

  record Started(String replayId) {}

  private final Replays replays;

  ReplayController(Replays replays) {
    this.replays = replays;
  }

  @PostMapping
  @ApiResponse(responseCode = "202", description = "Started", useReturnTypeSchema = true)
  @Problem(status = 409, codes = QueryProblems.REPLAY_IN_PROGRESS)
  ResponseEntity<Started> start() {
    Replays.Replay replay =
        replays
            .start()
            .orElseThrow(
                () ->
                    new ProblemException(
                        HttpStatus.CONFLICT,
                        QueryProblems.REPLAY_IN_PROGRESS,
                        "A replay is running",
                        "The read models are being rebuilt already; follow the running replay.",
                        Map.of()));
    return ResponseEntity.accepted().body(new Started(replay.replayId()));
  }

  @GetMapping("/{replayId}")
  @Problem(status = 404, codes = QueryProblems.UNKNOWN_REPLAY)
  Replays.Replay find(@PathVariable @Pattern(regexp = "[A-Za-z0-9-]{1,64}") String replayId) {
    return replays
        .find(replayId)
        .orElseThrow(
            () ->
                new ProblemException(
                    HttpStatus.NOT_FOUND,
                    QueryProblems.UNKNOWN_REPLAY,
                    "Unknown replay",
                    "No replay " + replayId + " is known.",
                    Map.of("replayId", replayId)));
  }
}
