package dev.materializer.spring.event;

import org.springframework.context.ApplicationEvent;

/**
 * An event of the engine, published to the application context by {@link MaterializerEventPublisher}.
 * Published on the engine's thread that saw it happen: keep a listener quick, or make it
 * {@code @Async}.
 */
public abstract class MaterializerEvent extends ApplicationEvent {

    private static final long serialVersionUID = 1L;

    /** @param source the publisher */
    protected MaterializerEvent(Object source) {
        super(source);
    }
}
