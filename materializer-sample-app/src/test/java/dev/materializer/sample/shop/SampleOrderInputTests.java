package dev.materializer.sample.shop;

import dev.materializer.sample.InvalidInputException;
import dev.materializer.sample.TenantName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SampleOrderInputTests {

    @Test
    void aCompleteOrderWithinRangeIsAccepted() {
        OrderInput input = new OrderInput("alice", "widget", 3, 2.5);

        assertThat(input.checked()).isSameAs(input);
    }

    @Test
    void eachFieldOutOfRangeIsRefusedByName() {
        assertThatThrownBy(() -> new OrderInput(" ", "widget", 1, 1.0).checked()).isInstanceOf(InvalidInputException.class)
            .hasMessageStartingWith("customer must be");
        assertThatThrownBy(() -> new OrderInput("alice", "Widget!", 1, 1.0).checked()).hasMessageStartingWith("product must be");
        assertThatThrownBy(() -> new OrderInput("alice", "widget", 0, 1.0).checked()).hasMessageStartingWith("quantity must be");
        assertThatThrownBy(() -> new OrderInput("alice", "widget", null, 1.0).checked()).hasMessageStartingWith("quantity must be");
        assertThatThrownBy(() -> new OrderInput("alice", "widget", 1, -1.0).checked()).hasMessageStartingWith("price must be");
        assertThatThrownBy(() -> new OrderInput("alice", "widget", 1, Double.NaN).checked()).hasMessageStartingWith("price must be");
    }

    @Test
    void aTenantNameCannotCarryTheSeparatorOfViewIds() {
        assertThat(TenantName.check("acme-2")).isEqualTo("acme-2");
        assertThatThrownBy(() -> TenantName.check("acme:x")).isInstanceOf(InvalidInputException.class)
            .hasMessageContaining("tenant must be");
        assertThatThrownBy(() -> TenantName.check("")).isInstanceOf(InvalidInputException.class);
    }
}
