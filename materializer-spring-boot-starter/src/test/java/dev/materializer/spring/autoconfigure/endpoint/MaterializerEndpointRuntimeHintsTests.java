package dev.materializer.spring.autoconfigure.endpoint;

import java.lang.reflect.Method;
import java.util.List;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.materializer.spring.endpoint.MaterializerEndpoint;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.annotation.AnnotationUtils;

import static org.assertj.core.api.Assertions.assertThat;

/** The hints cover every type the endpoint answers with, and the auto-configuration imports them. */
class MaterializerEndpointRuntimeHintsTests {

    private final RuntimeHints hints = new RuntimeHints();

    MaterializerEndpointRuntimeHintsTests() {
        new MaterializerEndpointRuntimeHints().registerHints(this.hints, getClass().getClassLoader());
    }

    @Test
    void everyDescriptorTypeOfTheEndpointIsListed() {
        List<Class<?>> descriptors = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackagesOf(MaterializerEndpoint.class)
            .stream()
            .filter(type -> type.getModifiers().contains(JavaModifier.PUBLIC) && type.getSimpleName().endsWith("Descriptor"))
            .<Class<?>>map(JavaClass::reflect)
            .toList();
        assertThat(descriptors).isNotEmpty();
        assertThat(MaterializerEndpointRuntimeHints.DESCRIPTORS).containsExactlyInAnyOrderElementsOf(descriptors);
    }

    @Test
    void theGettersOfEveryDescriptorAreReflectable() {
        for (Class<?> type : MaterializerEndpointRuntimeHints.DESCRIPTORS) {
            assertThat(RuntimeHintsPredicates.reflection().onType(type)).as(type.getSimpleName()).accepts(this.hints);
            for (Method getter : type.getMethods()) {
                if (getter.getDeclaringClass() == Object.class || getter.getParameterCount() > 0
                        || !(getter.getName().startsWith("get") || getter.getName().startsWith("is"))) {
                    continue;
                }
                assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(getter))
                    .as("%s.%s", type.getSimpleName(), getter.getName()).accepts(this.hints);
            }
        }
    }

    @Test
    void theOperatorPageItReadsIsAResourceOfTheImage() {
        assertThat(RuntimeHintsPredicates.resource().forResource(MaterializerEndpointRuntimeHints.OPERATOR_PAGE))
            .accepts(this.hints);
        assertThat(getClass().getClassLoader().getResource(MaterializerEndpointRuntimeHints.OPERATOR_PAGE)).isNotNull();
    }

    @Test
    void theEndpointAutoConfigurationImportsTheHints() {
        ImportRuntimeHints imported = AnnotationUtils.findAnnotation(MaterializerEndpointAutoConfiguration.class,
                ImportRuntimeHints.class);
        assertThat(imported).isNotNull();
        assertThat(imported.value()).contains(MaterializerEndpointRuntimeHints.class);
    }
}
