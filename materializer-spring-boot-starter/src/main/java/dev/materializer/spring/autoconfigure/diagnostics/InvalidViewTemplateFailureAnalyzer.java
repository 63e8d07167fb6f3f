package dev.materializer.spring.autoconfigure.diagnostics;

import dev.materializer.spring.data.InvalidViewTemplateException;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * A {@code ViewTemplate} bean the engine would refuse stopped the application: says which bean, its
 * id pattern and what is wrong, instead of the chain of bean creation failures around it.
 */
final class InvalidViewTemplateFailureAnalyzer extends AbstractFailureAnalyzer<InvalidViewTemplateException> {

    @Override
    protected @Nullable FailureAnalysis analyze(Throwable rootFailure, InvalidViewTemplateException cause) {
        String description = "The view template bean '" + cause.getBeanName() + "' (id pattern '"
                + cause.getIdPattern() + "') is invalid: " + cause.getProblem();
        String action = "Fix the @Bean method '" + cause.getBeanName() + "' that builds the ViewTemplate: "
                + "each template is checked as the engine checks a view document (its pipeline, collections "
                + "and targetCollection), and no two templates may share an id pattern or a targetCollection. "
                + "See docs/spring-data.md, \"View templates\".";
        return new FailureAnalysis(description, action, cause);
    }
}
