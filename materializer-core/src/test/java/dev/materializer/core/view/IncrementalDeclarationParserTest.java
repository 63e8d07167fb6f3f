package dev.materializer.core.view;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The {@code incremental} field of a view document: read, checked for form, kept apart by the fingerprint. */
class IncrementalDeclarationParserTest {

    @Test
    void aViewWithoutTheFieldLeavesItToTheAnalysisAndKeepsItsFingerprint() throws InvalidViewException {
        BsonDocument document = Views.view("v").document();

        ViewDefinition view = Views.PARSER.parse(document);

        assertThat(view.incremental()).isEqualTo(IncrementalDeclaration.AUTO);
        // The fingerprint of a view without a declaration is what it was before declarations existed
        assertThat(view.fingerprint()).isEqualTo(ViewFingerprint.of(view.collections(), view.pipeline(),
                view.targetCollection(), view.sourceFields()));
    }

    @Test
    void trueIsTheSameAsNoDeclaration() throws InvalidViewException {
        ViewDefinition plain = Views.PARSER.parse(Views.view("v").document());

        ViewDefinition declared = Views.PARSER.parse(with("true"));

        assertThat(declared.incremental()).isEqualTo(IncrementalDeclaration.AUTO);
        assertThat(declared.fingerprint()).isEqualTo(plain.fingerprint());
    }

    @Test
    void falseTurnsItOff() throws InvalidViewException {
        assertThat(Views.PARSER.parse(with("false")).incremental()).isEqualTo(IncrementalDeclaration.OFF);
    }

    @Test
    void aKeyIsOnePathOrAnArrayOfPaths() throws InvalidViewException {
        assertThat(Views.PARSER.parse(with("{key: 'customer'}")).incremental())
            .isEqualTo(IncrementalDeclaration.key(List.of("customer")));
        assertThat(Views.PARSER.parse(with("{key: ['customer', 'address.region']}")).incremental())
            .isEqualTo(IncrementalDeclaration.key(List.of("customer", "address.region")));
    }

    @Test
    void viewsThatDeclareDifferentlyDoNotShareAFingerprint() throws InvalidViewException {
        // Views with one fingerprint share one definition in the registry, declaration included
        String none = Views.PARSER.parse(Views.view("v").document()).fingerprint();
        String off = Views.PARSER.parse(with("false")).fingerprint();
        String customer = Views.PARSER.parse(with("{key: 'customer'}")).fingerprint();
        String region = Views.PARSER.parse(with("{key: 'region'}")).fingerprint();

        assertThat(List.of(none, off, customer, region)).doesNotHaveDuplicates();
    }

    @Test
    void aDefinitionSharedWithAnotherViewKeepsTheDeclaration() throws InvalidViewException {
        ViewDefinition view = Views.PARSER.parse(with("{key: 'customer'}"));

        ViewDefinition other = view.sharedWith(new BsonString("w"), "tenant-2");

        assertThat(other.incremental()).isEqualTo(view.incremental());
    }

    @Test
    void theSevenPartConstructorHasNoDeclaration() {
        ViewDefinition view = new ViewDefinition(new BsonString("v"), "p", List.of("orders"), List.of(), "out", Map.of(),
                "f");

        assertThat(view.incremental()).isEqualTo(IncrementalDeclaration.AUTO);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
        "a number            | 1                 | incremental must be true, false or {key: <a field path or an array of field paths>}, was a value of type int32",
        "a string            | 'customer'        | incremental must be true, false or {key: <a field path or an array of field paths>}, was 'customer'",
        "an empty document   | {}                | incremental must be true, false or {key: <a field path or an array of field paths>}, was an empty document",
        "another option      | {key: 'c', x: 1}  | incremental must be true, false or {key: <a field path or an array of field paths>}, was a document with keys [key, x]",
        "a misspelt key      | {keys: 'c'}       | incremental must be true, false or {key: <a field path or an array of field paths>}, was a document with keys [keys]",
        "a path with a $     | {key: '$c'}       | incremental.key must be a field path such as 'customer' or 'address.city': dot-separated names, none blank or starting with '$', was '$c'",
        "an empty path       | {key: ''}         | incremental.key must be a field path such as 'customer' or 'address.city': dot-separated names, none blank or starting with '$', was ''",
        "an empty array      | {key: []}         | incremental.key must be a field path or a non-empty array of field paths, was an empty array",
        "a number key        | {key: 1}          | incremental.key must be a field path or a non-empty array of field paths, was a value of type int32",
        "a bad path in array | {key: ['c', 'a.']} | incremental.key[1] must be a field path such as 'lines.price': dot-separated names, none blank or starting with '$', was 'a.'",
        "a path twice        | {key: ['c', 'c']} | incremental.key names a field path twice: [c, c]",
    })
    void aMalformedDeclarationMakesTheViewInvalid(String why, String json, String message) {
        assertThatThrownBy(() -> Views.PARSER.parse(with(json))).isInstanceOf(InvalidViewException.class)
            .hasMessage(message);
    }

    private static BsonDocument with(String json) {
        BsonDocument document = Views.view("v").document();
        BsonValue value = BsonDocument.parse("{value: " + json + "}").get("value");
        document.put("incremental", value);
        return document;
    }
}
