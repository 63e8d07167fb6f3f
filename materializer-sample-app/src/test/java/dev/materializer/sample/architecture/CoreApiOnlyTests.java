package dev.materializer.sample.architecture;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The sample uses the core through what the core exports only (its {@code module-info}): the API
 * package and the runtime's facade. The core's other packages are its own and change without notice.
 */
class CoreApiOnlyTests {

    @Test
    void theSampleNamesOnlyTheExportedPackagesOfTheCore() {
        noClasses().that().resideInAPackage("dev.materializer.sample..")
            .should().dependOnClassesThat(resideInAPackage("dev.materializer.core..")
                .and(not(resideInAnyPackage("dev.materializer.core", "dev.materializer.core.engine"))))
            .check(new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.materializer.sample"));
    }
}
