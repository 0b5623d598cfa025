package io.stockade.query.replay;

import org.springframework.boot.test.context.SpringBootTest;

/**
 * {@link ReplayIntegrationTest}'s workload and checks with the reservation fold writing every three
 * changes: a reservation's later events then mostly reach rows written in an earlier batch, and go
 * as updates in bulk, up to four of one reservation in a batch (extensions, a confirmation, its
 * NOT_CONFIRMED release), applied in rounds. The models must come out row for row the same.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "stockade.replay.reservation-window=3")
class ReplayInSmallWindowsIntegrationTest extends ReplayIntegrationTest {}
