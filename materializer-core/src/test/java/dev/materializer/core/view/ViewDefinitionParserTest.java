package dev.materializer.core.view;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.materializer.core.ViewKey;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;

import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonUndefined;
import org.bson.BsonValue;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ViewDefinitionParserTest {

    private static final ViewDefinitionParser PARSER = Views.PARSER;

    @Test
    void aValidDocumentGivesItsDefinition() throws InvalidViewException {
        BsonDocument document = Views.view("revenue").reads("orders", "customers").writes("revenue")
            .pipeline("{$lookup: {from: 'customers', localField: 'c', foreignField: '_id', as: 'customer'}}",
                    "{$group: {_id: '$customer.region', total: {$sum: '$amount'}}}")
            .sourceFields("orders", "c", "amount")
            .document();

        ViewDefinition view = PARSER.parse(document);

        assertThat(view.id()).isEqualTo(new BsonString("revenue"));
        assertThat(view.partition()).isEqualTo(Views.PARTITION);
        assertThat(view.key()).isEqualTo(new ViewKey(Views.PARTITION, "revenue"));
        assertThat(view.collections()).containsExactly("orders", "customers");
        assertThat(view.primarySource()).isEqualTo("orders");
        assertThat(view.pipeline()).containsExactly(
                BsonDocument.parse("{$lookup: {from: 'customers', localField: 'c', foreignField: '_id', as: 'customer'}}"),
                BsonDocument.parse("{$group: {_id: '$customer.region', total: {$sum: '$amount'}}}"));
        assertThat(view.targetCollection()).isEqualTo("revenue");
        assertThat(view.sourceFields()).isEqualTo(Map.of("orders", List.of("c", "amount")));
        assertThat(view.fingerprint()).matches("[0-9a-f]{64}");
    }

    @Test
    void anyIdOtherThanNullUndefinedOrAnArrayIsAccepted() throws InvalidViewException {
        ObjectId objectId = new ObjectId();
        for (BsonValue id : List.of(new BsonString("v"), new BsonObjectId(objectId), new BsonInt32(7),
                BsonDocument.parse("{name: 'v', version: 2}"))) {
            BsonDocument document = Views.view("v").document();
            document.put("_id", id);
            assertThat(PARSER.parse(document).id()).isEqualTo(id);
        }
    }

    @Test
    void theKeyOfAnObjectIdViewIsItsHex() throws InvalidViewException {
        ObjectId id = new ObjectId();
        BsonDocument document = Views.view("v").document();
        document.put("_id", new BsonObjectId(id));

        assertThat(PARSER.parse(document).key().id()).isEqualTo(id.toHexString());
    }

    @Test
    void anEmptyPipelineIsAccepted() throws InvalidViewException {
        assertThat(PARSER.parse(Views.view("v").pipeline().document()).pipeline()).isEmpty();
    }

    @Test
    void anEmptyListOfSourceFieldsIsAcceptedAndMeansEveryField() throws InvalidViewException {
        assertThat(PARSER.parse(Views.view("v").sourceFields("orders").document()).sourceFields())
            .isEqualTo(Map.of("orders", List.of()));
    }

    @Test
    void unknownTopLevelFieldsAreAllowedForUsersMetadata() throws InvalidViewException {
        BsonDocument document = Views.view("v").document();
        document.put("description", new BsonString("monthly revenue"));
        document.put("owner", BsonDocument.parse("{team: 'finance'}"));

        assertThat(PARSER.parse(document).targetCollection()).isEqualTo("v_out");
    }

    @Test
    void theStatusFieldIsIgnoredEvenWhenMalformed() throws InvalidViewException {
        BsonDocument document = Views.view("v").document();
        document.put("_materializerStatus", new BsonString("not a document"));

        assertThat(PARSER.parse(document).key().id()).isEqualTo("v");
    }

    @Test
    void writingStagesAreLeftToTheScopeGuard() throws InvalidViewException {
        BsonDocument document = Views.view("v").pipeline("{$match: {}}", "{$merge: {into: 'elsewhere'}}").document();

        assertThat(PARSER.parse(document).pipeline()).hasSize(2);
    }

    @Test
    void thePartitionFieldIsConfigurable() throws InvalidViewException {
        ViewDefinitionParser parser = new ViewDefinitionParser("tenant", "_aggregations");
        BsonDocument document = Views.view("v").document();
        document.put("tenant", new BsonString("acme"));

        assertThat(parser.parse(document).partition()).isEqualTo("acme");
        document.remove("tenant");
        assertThatThrownBy(() -> parser.parse(document)).isInstanceOf(InvalidViewException.class)
            .hasMessage("tenant (the partition of the view) must be a non-empty string, was missing");
    }

    @Test
    void theViewsCollectionIsConfigurable() {
        ViewDefinitionParser parser = new ViewDefinitionParser("_part", "views");

        assertThatThrownBy(() -> parser.parse(Views.view("v").reads("orders", "views").document()))
            .hasMessage("collections[1] 'views' is not allowed: it is the views collection");
        assertThatThrownBy(() -> parser.parse(Views.view("v").writes("views").document()))
            .hasMessage("targetCollection 'views' is not allowed: it is the views collection");
    }

    @Test
    void theDefinitionDoesNotShareMutableStateWithTheDocument() throws InvalidViewException {
        BsonDocument document = Views.view("v").sourceFields("orders", "amount").document();
        document.put("_id", BsonDocument.parse("{name: 'v'}"));
        ViewDefinition view = PARSER.parse(document);

        document.getArray("pipeline").get(0).asDocument().put("$match", BsonDocument.parse("{changed: true}"));
        document.getDocument("_id").put("name", new BsonString("changed"));

        assertThat(view.pipeline()).containsExactly(BsonDocument.parse("{$match: {}}"));
        assertThat(view.id()).isEqualTo(BsonDocument.parse("{name: 'v'}"));
        assertThatThrownBy(() -> view.sourceFields().get("orders").add("more"))
            .isInstanceOf(UnsupportedOperationException.class);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidDocuments")
    void anInvalidDocumentIsRefusedWithAMessageNamingTheFieldAndWhatIsAllowed(String why,
            Consumer<BsonDocument> change, String message) {
        BsonDocument document = Views.view("v").reads("orders", "customers").document();
        change.accept(document);

        assertThatThrownBy(() -> PARSER.parse(document)).isInstanceOf(InvalidViewException.class).hasMessage(message);
    }

    static Stream<Arguments> invalidDocuments() {
        return Stream.of(
                // _id
                invalid("a missing _id", remove("_id"), "_id is missing"),
                invalid("a null _id", set("_id", "null"),
                        "_id must be a value other than null, undefined or an array, was a value of type null"),
                invalid("an array _id", set("_id", "['a']"),
                        "_id must be a value other than null, undefined or an array, was an array"),
                invalid("an undefined _id", document -> document.put("_id", new BsonUndefined()),
                        "_id must be a value other than null, undefined or an array, was a value of type undefined"),
                // partition
                invalid("a missing partition", remove("_part"),
                        "_part (the partition of the view) must be a non-empty string, was missing"),
                invalid("an empty partition", set("_part", "''"),
                        "_part (the partition of the view) must be a non-empty string, was ''"),
                invalid("a numeric partition", set("_part", "3"),
                        "_part (the partition of the view) must be a non-empty string, was a value of type int32"),
                // collections
                invalid("missing collections", remove("collections"),
                        "collections must be a non-empty array of source collection names, was missing"),
                invalid("collections as a string", set("collections", "'orders'"),
                        "collections must be a non-empty array of source collection names, was 'orders'"),
                invalid("empty collections", set("collections", "[]"),
                        "collections must be a non-empty array of source collection names, was an empty array"),
                invalid("a numeric collection", set("collections", "['orders', 5]"),
                        "collections[1] must be a non-empty collection name, was a value of type int32"),
                invalid("an empty collection name", set("collections", "['']"),
                        "collections[0] must be a non-empty collection name, was ''"),
                invalid("a collection named twice", set("collections", "['orders', 'customers', 'orders']"),
                        "collections[2] names 'orders' again; each source may appear once"),
                invalid("the views collection as a source", set("collections", "['orders', '_aggregations']"),
                        "collections[1] '_aggregations' is not allowed: it is the views collection"),
                invalid("a system collection as a source", set("collections", "['system.views']"),
                        "collections[0] 'system.views' is not allowed: names starting with 'system.' are MongoDB's own collections"),
                invalid("a source with a dollar", set("collections", "['or$ders']"),
                        "collections[0] 'or$ders' is not a collection name: it may not contain '$' or NUL"),
                // pipeline
                invalid("a missing pipeline", remove("pipeline"), "pipeline must be an array of stages, was missing"),
                invalid("a pipeline as a document", set("pipeline", "{$match: {}}"),
                        "pipeline must be an array of stages, was a document with keys [$match]"),
                invalid("a stage that is not a document", set("pipeline", "[{$match: {}}, '$match']"),
                        "pipeline[1] must be a document with exactly one stage operator (a key starting with '$'), was '$match'"),
                invalid("a stage with two operators", set("pipeline", "[{$match: {}}, {$match: {}}, {$match: {}, $limit: 1}]"),
                        "pipeline[2] must be a document with exactly one stage operator (a key starting with '$'), "
                                + "was a document with keys [$match, $limit]"),
                invalid("an empty stage", set("pipeline", "[{}]"),
                        "pipeline[0] must be a document with exactly one stage operator (a key starting with '$'), "
                                + "was an empty document"),
                invalid("a stage without a dollar", set("pipeline", "[{match: {}}]"),
                        "pipeline[0] must be a document with exactly one stage operator (a key starting with '$'), "
                                + "was a document with keys [match]"),
                // targetCollection
                invalid("a missing target", remove("targetCollection"),
                        "targetCollection must be a non-empty collection name, was missing"),
                invalid("an empty target", set("targetCollection", "''"),
                        "targetCollection must be a non-empty collection name, was ''"),
                invalid("a target that is an array", set("targetCollection", "['out']"),
                        "targetCollection must be a non-empty collection name, was an array"),
                invalid("a target that is one of its own sources", set("targetCollection", "'customers'"),
                        "targetCollection 'customers' is also in collections [orders, customers]; "
                                + "a view may not have a target that is also one of its own sources"),
                invalid("the views collection as target", set("targetCollection", "'_aggregations'"),
                        "targetCollection '_aggregations' is not allowed: it is the views collection"),
                invalid("a system collection as target", set("targetCollection", "'system.profile'"),
                        "targetCollection 'system.profile' is not allowed: names starting with 'system.' are MongoDB's own collections"),
                invalid("a target with a dollar", set("targetCollection", "'out$'"),
                        "targetCollection 'out$' is not a collection name: it may not contain '$' or NUL"),
                // sourceFields
                invalid("sourceFields as an array", set("sourceFields", "['amount']"),
                        "sourceFields must be a document of field paths per source collection, was an array"),
                invalid("sourceFields of a collection that is not a source", set("sourceFields", "{orders: ['a'], x: ['b']}"),
                        "sourceFields names 'x', which is not one of collections [orders, customers]"),
                invalid("sourceFields of a source as a string", set("sourceFields", "{orders: 'amount'}"),
                        "sourceFields.orders must be an array of field paths, was 'amount'"),
                invalid("an empty field path", set("sourceFields", "{customers: ['region', '']}"),
                        "sourceFields.customers[1] must be a field path such as 'lines.price': dot-separated names, none blank or starting with '$', was ''"),
                invalid("a field path with a leading dollar", set("sourceFields", "{orders: ['$amount']}"),
                        "sourceFields.orders[0] must be a field path such as 'lines.price': dot-separated names, none blank or starting with '$', was '$amount'"),
                invalid("a blank field path", set("sourceFields", "{orders: [' ']}"),
                        "sourceFields.orders[0] must be a field path such as 'lines.price': dot-separated names, none blank "
                                + "or starting with '$', was ' '"),
                invalid("a field path with an empty segment", set("sourceFields", "{orders: ['lines..price']}"),
                        "sourceFields.orders[0] must be a field path such as 'lines.price': dot-separated names, none blank "
                                + "or starting with '$', was 'lines..price'"),
                invalid("a field path with a trailing dot", set("sourceFields", "{orders: ['lines.']}"),
                        "sourceFields.orders[0] must be a field path such as 'lines.price': dot-separated names, none blank "
                                + "or starting with '$', was 'lines.'"),
                invalid("a field path with a dollar segment", set("sourceFields", "{orders: ['lines.$price']}"),
                        "sourceFields.orders[0] must be a field path such as 'lines.price': dot-separated names, none blank "
                                + "or starting with '$', was 'lines.$price'"),
                invalid("a numeric field path", set("sourceFields", "{orders: [1]}"),
                        "sourceFields.orders[0] must be a field path such as 'lines.price': dot-separated names, none blank or starting with '$', "
                                + "was a value of type int32"));
    }

    private static Arguments invalid(String why, Consumer<BsonDocument> change, String message) {
        return Arguments.of(why, change, message);
    }

    private static Consumer<BsonDocument> remove(String field) {
        return document -> document.remove(field);
    }

    /** Sets a field to a value written in (relaxed) JSON. */
    private static Consumer<BsonDocument> set(String field, String json) {
        BsonValue value = BsonDocument.parse("{value: " + json + "}").get("value");
        return document -> document.put(field, value);
    }
}
