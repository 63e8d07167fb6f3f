package dev.materializer.spring.autoconfigure.endpoint;

import java.util.List;

import dev.materializer.spring.endpoint.BadRequestDescriptor;
import dev.materializer.spring.endpoint.CatchUpDescriptor;
import dev.materializer.spring.endpoint.MaterializerDescriptor;
import dev.materializer.spring.endpoint.PassDescriptor;
import dev.materializer.spring.endpoint.ReconcileDescriptor;
import dev.materializer.spring.endpoint.RefreshDescriptor;
import dev.materializer.spring.endpoint.VerifyDescriptor;
import dev.materializer.spring.endpoint.VerifyReportDescriptor;
import dev.materializer.spring.endpoint.ViewActionDescriptor;
import dev.materializer.spring.endpoint.ViewDescriptor;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * Hints for AOT and native images: the endpoint's answers are written by Jackson through their
 * getters, so every descriptor type gets the reflection of its getters (and the types they return).
 * Boot registers the declared return type of each operation, but two operations declare
 * {@code OperationResponseBody} and answer a {@code RefreshDescriptor} or a {@code VerifyDescriptor},
 * which it cannot see; the descriptors nested in others are listed too, so no type depends on how
 * far the walk from an operation goes. The one resource read at runtime is the operator page's HTML
 * ({@code MaterializerUiEndpoint}); the engine and the starter load no class by name, and the
 * properties are bound by Boot, which registers their hints itself.
 */
public final class MaterializerEndpointRuntimeHints implements RuntimeHintsRegistrar {

    /** The types the endpoint's answers are made of. */
    static final List<Class<?>> DESCRIPTORS = List.of(MaterializerDescriptor.class, CatchUpDescriptor.class,
            ReconcileDescriptor.class, ViewDescriptor.class, ViewActionDescriptor.class, RefreshDescriptor.class,
            PassDescriptor.class, VerifyDescriptor.class, VerifyReportDescriptor.class, BadRequestDescriptor.class);

    /** The operator page, read from the class path when its endpoint is created. */
    static final String OPERATOR_PAGE = "dev/materializer/spring/endpoint/operator.html";

    private final BindingReflectionHintsRegistrar bindings = new BindingReflectionHintsRegistrar();

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        this.bindings.registerReflectionHints(hints.reflection(), DESCRIPTORS.toArray(Class<?>[]::new));
        hints.resources().registerPattern(OPERATOR_PAGE);
    }
}
