package dev.materializer.spring.endpoint;

import org.jspecify.annotations.Nullable;

/** What a refresh did: the answer of {@code POST /actuator/materializer/{partition}/{id}}. */
public final class RefreshDescriptor extends ViewActionDescriptor {

    private final @Nullable PassDescriptor pass;

    RefreshDescriptor(String partition, String id, String status, @Nullable PassDescriptor pass,
            @Nullable String message) {
        super(partition, id, status, message);
        this.pass = pass;
    }

    /** @return the report of the pass, when it finished */
    public @Nullable PassDescriptor getPass() {
        return this.pass;
    }
}
