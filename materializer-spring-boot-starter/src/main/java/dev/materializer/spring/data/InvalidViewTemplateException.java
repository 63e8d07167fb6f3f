package dev.materializer.spring.data;

import org.jspecify.annotations.Nullable;

/**
 * A view template the engine would refuse, or that clashes with another template; the message names
 * the bean, the template's id pattern and what is wrong.
 */
public final class InvalidViewTemplateException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String beanName;

    private final String idPattern;

    private final String problem;

    /**
     * @param beanName the bean of the template
     * @param template the template
     * @param problem what is wrong
     * @param cause the engine's refusal, or null
     */
    InvalidViewTemplateException(String beanName, ViewTemplate template, String problem, @Nullable Throwable cause) {
        super("View template bean '" + beanName + "' (" + template.idPattern() + ") is invalid: " + problem, cause);
        this.beanName = beanName;
        this.idPattern = template.idPattern();
        this.problem = problem;
    }

    /** The id pattern of the template, such as {@code "{tenant}:revenue"}. */
    public String getIdPattern() {
        return this.idPattern;
    }

    /** What is wrong with the template, without the bean's name. */
    public String getProblem() {
        return this.problem;
    }

    /** The bean of the template. */
    public String getBeanName() {
        return this.beanName;
    }
}
