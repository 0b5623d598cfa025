package io.stockade.platform.logging;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.axonframework.eventhandling.GenericEventMessage;
import org.axonframework.messaging.MetaData;
import org.axonframework.messaging.unitofwork.DefaultUnitOfWork;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

class MessageLoggingTest {

  @AfterEach
  void clearMdc() {
    MDC.clear();
  }

  @Test
  void anEventHandlerHasTheEventsKeysInTheMdcAndTheMdcIsRestoredAfterwards() throws Exception {
    MDC.put(LoggingContext.REQUEST_ID, "outer-request");
    MDC.put("other", "kept");
    var event =
        GenericEventMessage.asEventMessage("payload")
            .andMetaData(MetaData.with(LoggingContext.REQUEST_ID, "req-1").and("x", "y"));
    Map<String, String> seen = new HashMap<>();

    new MessageLogging.MdcFromMetaData<>()
        .handle(
            DefaultUnitOfWork.startAndGet(event),
            () -> {
              seen.putAll(MDC.getCopyOfContextMap());
              return null;
            });

    assertThat(seen)
        .containsEntry(LoggingContext.REQUEST_ID, "req-1")
        .doesNotContainKey(LoggingContext.RESERVATION_ID)
        .containsEntry("other", "kept");
    assertThat(MDC.get(LoggingContext.REQUEST_ID)).isEqualTo("outer-request");
    assertThat(MDC.get("other")).isEqualTo("kept");
  }

  @Test
  void newMessagesTakeTheHandledMessagesKeysElseTheRequestsMdc() {
    MDC.put(LoggingContext.REQUEST_ID, "req-from-mdc");
    MDC.put(LoggingContext.RESERVATION_ID, "O-mdc");
    var command =
        GenericEventMessage.asEventMessage("command")
            .andMetaData(MetaData.with(LoggingContext.RESERVATION_ID, "O-message"));

    Map<String, Object> data = Map.copyOf(MessageLogging.correlation().correlationDataFor(command));

    assertThat(data)
        .containsEntry(LoggingContext.REQUEST_ID, "req-from-mdc")
        .containsEntry(LoggingContext.RESERVATION_ID, "O-message")
        .hasSize(2);
  }
}
