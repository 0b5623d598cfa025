package io.stockade.query;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noMethods;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import io.stockade.api.StreamFold;
import java.util.List;
import org.axonframework.eventhandling.EventHandler;
import org.axonframework.eventsourcing.EventSourcingHandler;

@AnalyzeClasses(packages = "io.stockade", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

  /** The read side learns everything from events and queries, never from the write side. */
  @ArchTest
  static final ArchRule queryDoesNotDependOnCommand =
      noClasses()
          .that()
          .resideInAPackage("io.stockade.query..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.stockade.command..");

  /** Projections change the read model only in reaction to events. */
  @ArchTest
  static final ArchRule noAggregatesOnTheQuerySide =
      noClasses()
          .that()
          .resideInAPackage("io.stockade.query..")
          .should()
          .beAnnotatedWith("org.axonframework.spring.stereotype.Aggregate")
          .orShould()
          .dependOnClassesThat()
          .haveFullyQualifiedName("org.axonframework.commandhandling.gateway.CommandGateway");

  /**
   * Axon hands an event to one handler per stream, which applies the stream's fold: a handler of
   * one event would be a fold the compiler cannot check for completeness.
   */
  @ArchTest
  static final ArchRule eventHandlersTakeAWholeStream =
      noMethods()
          .that()
          .areAnnotatedWith(EventHandler.class)
          .or()
          .areAnnotatedWith(EventSourcingHandler.class)
          .should()
          .haveRawParameterTypes(
              DescribedPredicate.describe(
                  "one event of a stream",
                  (List<JavaClass> types) ->
                      types.stream()
                          .anyMatch(type -> StreamFold.EVENTS.containsKey(type.getName()))));
}
