package io.stockade.query;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

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
}
