package dev.materializer.spring.web;

import dev.materializer.spring.data.MaterializedViewNotFoundException;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * A {@link MaterializedViewNotFoundException} that leaves a controller of the application answers
 * {@code 404 Not Found} with a {@link ProblemDetail} (RFC 9457): the exception's message as its
 * {@code detail}, the {@code tenant} and the {@code view} asked for as properties. Last in order, so
 * an {@code @ExceptionHandler} of the application for the exception wins. Thread-safe: no state.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public final class MaterializedViewProblemAdvice {

    /**
     * @param ex the view not found
     * @return the problem, status 404
     */
    @ExceptionHandler(MaterializedViewNotFoundException.class)
    public ProblemDetail viewNotFound(MaterializedViewNotFoundException ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, ex.getMessage());
        problem.setProperty("tenant", ex.getTenant());
        problem.setProperty("view", ex.getView());
        return problem;
    }
}
