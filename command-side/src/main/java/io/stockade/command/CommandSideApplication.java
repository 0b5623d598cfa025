package io.stockade.command;

import java.time.Clock;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;

/** REST commands: the Redis admission gate decides, Axon records the decisions in MySQL. */
@SpringBootApplication
@ConfigurationPropertiesScan
@EnableScheduling
public class CommandSideApplication {

  public static void main(String[] args) {
    SpringApplication.run(CommandSideApplication.class, args);
  }

  @Bean
  Clock clock() {
    return Clock.systemUTC();
  }
}
