package io.stockade.query.dashboard;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * What the dashboard's page needs to know before its first call: where the command side is, for the
 * sale's commands it sends from the browser ({@code stockade.dashboard.command-side-url}; the
 * command side must allow the dashboard's origin, {@code stockade.cors.allowed-origins}). Open, as
 * the page itself is: it holds no secret.
 */
@RestController
class DashboardSettingsController {

  /** {@code commandSideUrl}: null when not set (the page then offers no commands). */
  record DashboardSettings(String commandSideUrl) {}

  private final DashboardSettings settings;

  DashboardSettingsController(
      @Value("${stockade.dashboard.command-side-url:}") String commandSideUrl) {
    String url = commandSideUrl.strip().replaceAll("/+$", "");
    this.settings = new DashboardSettings(url.isEmpty() ? null : url);
  }

  @GetMapping("/dashboard/settings")
  DashboardSettings settings() {
    return settings;
  }
}
