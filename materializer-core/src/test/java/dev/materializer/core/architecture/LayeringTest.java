package dev.materializer.core.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The layering of the core: the API ({@code dev.materializer.core}) depends on nothing else of the
 * core; the internal packages never depend on the runtime ({@code engine}), which composes them; no
 * two packages depend on each other; the runtime shows only its facade and the few types other
 * packages and modules name.
 */
class LayeringTest {

    private static final String API = "dev.materializer.core";

    private static final String RUNTIME = "dev.materializer.core.engine";

    private static final JavaClasses CORE = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages(API);

    @Test
    void theApiDependsOnNothingOfTheCoreButItself() {
        classes().that().resideInAPackage(API)
            .should().onlyDependOnClassesThat().resideInAnyPackage(API, "java..", "org.bson..", "com.mongodb..",
                    "org.jspecify..", "org.slf4j..")
            .because("an application that names the API must not reach the engine's parts through it")
            .check(CORE);
    }

    @Test
    void theInternalPackagesNeverDependOnTheRuntime() {
        noClasses().that().resideOutsideOfPackage(RUNTIME)
            .should().dependOnClassesThat().resideInAPackage(RUNTIME)
            .because("the runtime composes the parts: a part that reached back would be wired after construction")
            .check(CORE);
    }

    @Test
    void noTwoPackagesOfTheCoreDependOnEachOther() {
        slices().matching("dev.materializer.core.(*)..").should().beFreeOfCycles().check(CORE);
    }

    @Test
    void theRuntimeShowsOnlyItsFacadeAndTheTypesOthersName() {
        classes().that().resideInAPackage(RUNTIME).and().areTopLevelClasses().and().arePublic()
            .should().haveNameMatching(RUNTIME.replace(".", "\\.")
                    + "\\.(ViewMaterializer|ViewDocumentCheck|EngineDiagnostics|EngineSettings)")
            .because("the other parts of the runtime are package-private: nothing outside may depend on them")
            .check(CORE);
    }
}
