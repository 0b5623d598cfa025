package io.stockade.api;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

@AnalyzeClasses(packages = "io.stockade.api", importOptions = ImportOption.DoNotIncludeTests.class)
class SharedApiArchitectureTest {

  @ArchTest
  static final ArchRule noSpringNoJpa =
      noClasses()
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "org.springframework..", "jakarta.persistence..", "javax.persistence..");

  @ArchTest
  static final ArchRule onlyTheAggregateIdentifierAnnotationFromAxon =
      noClasses()
          .should()
          .dependOnClassesThat(
              com.tngtech.archunit.base.DescribedPredicate.describe(
                  "Axon classes other than @TargetAggregateIdentifier",
                  type ->
                      type.getPackageName().startsWith("org.axonframework")
                          && !type.getName()
                              .equals(
                                  "org.axonframework.modelling.command.TargetAggregateIdentifier")));

  @ArchTest
  static final ArchRule messagesAreRecordsOrSealedInterfaces =
      classes()
          .should()
          .beRecords()
          .orShould()
          .beInterfaces()
          .orShould()
          .beEnums()
          .because(
              "commands, events, queries and results are plain immutable data (a closed set of"
                  + " values, such as an adjustment's reason, an enum)");
}
