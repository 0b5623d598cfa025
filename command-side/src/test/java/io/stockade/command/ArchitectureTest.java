package io.stockade.command;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noMethods;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import io.stockade.api.StreamFold;
import io.stockade.command.admission.PendingAdmissions;
import io.stockade.command.admission.ReservationTransitions;
import io.stockade.command.admission.Reserving;
import io.stockade.command.admission.SaleControl;
import io.stockade.command.admission.SkuStock;
import io.stockade.command.admission.StockAdjustments;
import java.util.List;
import java.util.Set;
import org.axonframework.eventhandling.EventHandler;
import org.axonframework.eventsourcing.EventSourcingHandler;

@AnalyzeClasses(packages = "io.stockade", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

  private static final String ADMISSION = "io.stockade.command.admission";

  /**
   * The classes outside the gate's package that may use the gate: the use cases that orchestrate it
   * (ask the gate, then record, then compensate) and the follower that brings the record's steps to
   * it. A new caller is a decision, made here; a controller or a projection never is one.
   */
  private static final Set<String> GATE_CALLERS =
      Set.of(
          "io.stockade.command.reservation.ReservingStock",
          "io.stockade.command.reservation.EndingReservation",
          "io.stockade.command.reservation.ExtendingReservation",
          "io.stockade.command.reservation.RecoveringUnrecordedAdmissions",
          "io.stockade.command.reservation.GateFollower",
          "io.stockade.command.reservation.Drawing",
          "io.stockade.command.sku.RegisteringSku",
          "io.stockade.command.sku.ReplenishingStock",
          "io.stockade.command.sku.ChangingSale",
          "io.stockade.command.sku.AdjustingStock",
          "io.stockade.command.sku.SkuViews",
          "io.stockade.command.sku.RecoveringUnrecordedAdjustments");

  /** The gate knows nothing of the reservations and SKUs it admits for: they call it. */
  @ArchTest
  static final ArchRule admissionDoesNotDependOnItsCallers =
      noClasses()
          .that()
          .resideInAPackage(ADMISSION + "..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("io.stockade.command.reservation..", "io.stockade.command.sku..");

  /**
   * The gate (its ports and their outcome types) is used by its own packages and by the listed use
   * cases only: any other class that holds it, calls it or reads its outcomes breaks the rule.
   */
  @ArchTest
  static final ArchRule onlyUseCasesUseTheGate =
      classes()
          .that()
          .belongToAnyOf(
              Reserving.class,
              ReservationTransitions.class,
              PendingAdmissions.class,
              SkuStock.class,
              SaleControl.class,
              StockAdjustments.class)
          .should()
          .onlyHaveDependentClassesThat(
              resideInAPackage(ADMISSION + "..")
                  .or(
                      DescribedPredicate.describe(
                          "are the gate's use cases " + GATE_CALLERS,
                          javaClass -> GATE_CALLERS.contains(topLevel(javaClass).getName()))));

  /**
   * The gate in parts by role, each a layer that knows only those below it: the port (the
   * interface, its values and exceptions: all that the use cases see), the Redis operations and
   * their wiring, the decision log drained from Redis, and the keeper that fences epochs and
   * rebuilds the gate from the record. The rest of the module reaches the gate through the port
   * only; the parts are public to each other for this split, and this rule is what keeps them from
   * everyone else.
   */
  @ArchTest
  static final ArchRule theGateIsLayeredByRole =
      layeredArchitecture()
          .consideringOnlyDependenciesInAnyPackage("io.stockade..")
          .layer("Callers")
          .definedBy(
              DescribedPredicate.describe(
                  "the rest of the command side",
                  (JavaClass javaClass) ->
                      javaClass.getPackageName().startsWith("io.stockade.command")
                          && !javaClass.getPackageName().startsWith(ADMISSION)))
          .layer("Port")
          .definedBy(ADMISSION)
          .layer("Redis")
          .definedBy(ADMISSION + ".redis..")
          .layer("Decisions")
          .definedBy(ADMISSION + ".decisions..")
          .layer("Rebuild")
          .definedBy(ADMISSION + ".rebuild..")
          .whereLayer("Rebuild")
          .mayNotBeAccessedByAnyLayer()
          .whereLayer("Decisions")
          .mayOnlyBeAccessedByLayers("Rebuild")
          .whereLayer("Redis")
          .mayOnlyBeAccessedByLayers("Decisions", "Rebuild")
          .whereLayer("Port")
          .mayOnlyBeAccessedByLayers("Callers", "Redis", "Decisions", "Rebuild");

  /**
   * The gate's classes depend on each other in one direction only (a nested class counts as its
   * top-level class's): the operations on the parts, the parts on the script plumbing, the rebuild
   * and the keeper on what they share with the gate, never the other way round.
   */
  @ArchTest
  static final ArchRule theGatesClassesHaveNoCycle =
      slices().assignedFrom(classesOf(ADMISSION)).should().beFreeOfCycles();

  /** One slice per top-level class of {@code pkg}; every other class is left out. */
  private static SliceAssignment classesOf(String pkg) {
    return new SliceAssignment() {
      @Override
      public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
        return javaClass.getPackageName().startsWith(pkg)
            ? SliceIdentifier.of(topLevel(javaClass).getName())
            : SliceIdentifier.ignore();
      }

      @Override
      public String getDescription() {
        return "the classes of " + pkg + " and its parts";
      }
    };
  }

  private static JavaClass topLevel(JavaClass javaClass) {
    JavaClass outer = javaClass;
    while (outer.getEnclosingClass().isPresent()) {
      outer = outer.getEnclosingClass().get();
    }
    return outer;
  }

  /**
   * Axon hands an event to one handler per stream, which applies the stream's fold: a handler of
   * one event would be a fold the compiler cannot check for completeness.
   */
  @ArchTest
  static final ArchRule eventHandlersTakeAWholeStream =
      noMethods()
          .that(
              DescribedPredicate.describe(
                  "are Axon event handlers outside the gate follower (which Axon must not hand"
                      + " every StockReserved: a transaction each on every instance)",
                  (com.tngtech.archunit.core.domain.JavaMethod method) ->
                      (method.isAnnotatedWith(EventHandler.class)
                              || method.isAnnotatedWith(EventSourcingHandler.class))
                          && !method
                              .getOwner()
                              .getName()
                              .equals("io.stockade.command.reservation.GateFollower")))
          .should()
          .haveRawParameterTypes(
              DescribedPredicate.describe(
                  "one event of a stream",
                  (List<JavaClass> types) ->
                      types.stream()
                          .anyMatch(type -> StreamFold.EVENTS.containsKey(type.getName()))));
}
