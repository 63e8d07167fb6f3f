package dev.materializer.core.view;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;

import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The fingerprint {@link ViewDefinitionParser} gives a definition. */
class ViewFingerprintTest {

    private static final ViewDefinitionParser PARSER = Views.PARSER;

    @Test
    void itIsSixtyFourHexDigits() throws InvalidViewException {
        assertThat(fingerprint(Views.view("v").document())).matches("[0-9a-f]{64}");
    }

    @Test
    void equalDefinitionsGiveEqualFingerprints() throws InvalidViewException {
        Views.Builder view = Views.view("v").reads("orders", "customers").sourceFields("orders", "amount")
            .pipeline("{$sort: {a: 1, b: -1}}");

        assertThat(PARSER.parse(view.document()).fingerprint()).isEqualTo(PARSER.parse(view.document()).fingerprint());
    }

    @Test
    void statusMetadataIdAndPartitionDoNotChangeIt() throws InvalidViewException {
        String original = fingerprint(Views.view("v").document());
        BsonDocument changed = Views.view("v").partition("tenant-2").document();
        changed.put("_id", new BsonString("other"));
        changed.put("_materializerStatus", BsonDocument.parse("{state: 'errored', lastError: 'boom'}"));
        changed.put("description", new BsonString("metadata"));

        assertThat(fingerprint(changed)).isEqualTo(original);
    }

    @Test
    void theOrderOfSourceFieldsBySourceDoesNotChangeIt() throws InvalidViewException {
        String ordersFirst = fingerprint(Views.view("v").reads("orders", "customers")
            .sourceFields("orders", "amount").sourceFields("customers", "region").document());
        String customersFirst = fingerprint(Views.view("v").reads("orders", "customers")
            .sourceFields("customers", "region").sourceFields("orders", "amount").document());

        assertThat(customersFirst).isEqualTo(ordersFirst);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("changes")
    void anyChangeOfTheDefinitionChangesIt(String why, Views.Builder changed) throws InvalidViewException {
        assertThat(fingerprint(changed.document())).isNotEqualTo(fingerprint(base().document()));
    }

    static Views.Builder base() {
        return Views.view("v").reads("orders", "customers").writes("out").pipeline("{$sort: {a: 1, b: -1}}")
            .sourceFields("orders", "amount");
    }

    static Stream<Arguments> changes() {
        return Stream.of(
                Arguments.of("another primary source", base().reads("customers", "orders")),
                Arguments.of("one source more", base().reads("orders", "customers", "regions")),
                Arguments.of("one source less", base().reads("orders")),
                Arguments.of("another sort direction", base().pipeline("{$sort: {a: 1, b: 1}}")),
                Arguments.of("another key order in $sort", base().pipeline("{$sort: {b: -1, a: 1}}")),
                Arguments.of("a number of another type", base().pipeline("{$sort: {a: {$numberLong: '1'}, b: -1}}")),
                Arguments.of("a stage more", base().pipeline("{$sort: {a: 1, b: -1}}", "{$limit: 10}")),
                Arguments.of("another target", base().writes("out2")),
                Arguments.of("other source fields", base().sourceFields("orders", "amount", "date")),
                Arguments.of("source fields of another source", base().sourceFields("customers", "region")),
                Arguments.of("a source field list emptied", base().sourceFields("orders")));
    }

    @Test
    void sourceNamesCannotRunTogether() throws InvalidViewException {
        assertThat(fingerprint(Views.view("v").reads("ab").document()))
            .isNotEqualTo(fingerprint(Views.view("v").reads("a", "b").document()));
    }

    @Test
    void droppingSourceFieldsChangesIt() throws InvalidViewException {
        assertThat(fingerprint(Views.view("v").document()))
            .isNotEqualTo(fingerprint(Views.view("v").sourceFields("orders", "amount").document()));
    }

    private String fingerprint(BsonDocument document) throws InvalidViewException {
        return PARSER.parse(document).fingerprint();
    }
}
