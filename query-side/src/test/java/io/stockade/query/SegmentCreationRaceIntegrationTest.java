package io.stockade.query;

import io.stockade.platform.testing.SegmentCreationRace;
import org.axonframework.eventhandling.tokenstore.TokenStore;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Two instances of the query side started together on a database that has never seen a processor
 * both start: the creation of its segments by one does not fail the other ({@link
 * SegmentCreationRace}).
 */
@SpringBootTest
class SegmentCreationRaceIntegrationTest {

  @Autowired private TokenStore tokenStore;
  @Autowired private PlatformTransactionManager transactions;
  @Autowired private JdbcTemplate jdbc;

  @Test
  void twoStartsCreatingTheSameSegmentsBothGoOn() throws Exception {
    SegmentCreationRace.bothStartsCommit(tokenStore, transactions, jdbc);
  }
}
