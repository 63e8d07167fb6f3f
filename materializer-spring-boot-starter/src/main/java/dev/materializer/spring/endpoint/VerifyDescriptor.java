package dev.materializer.spring.endpoint;

import org.jspecify.annotations.Nullable;

/** What a verify found: the answer of {@code POST /actuator/materializer/{partition}/{id}/verify}. */
public final class VerifyDescriptor extends ViewActionDescriptor {

    private final @Nullable VerifyReportDescriptor report;

    VerifyDescriptor(String partition, String id, String status, @Nullable VerifyReportDescriptor report,
            @Nullable String message) {
        super(partition, id, status, message);
        this.report = report;
    }

    /** @return what the comparison found, when it finished */
    public @Nullable VerifyReportDescriptor getReport() {
        return this.report;
    }
}
