package dev.materializer.core.stream;

import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SplitEventsTest {

    private final SplitEvents events = new SplitEvents();

    private static BsonDocument fragment(String token, int fragment, int of, String fields) {
        BsonDocument event = BsonDocument.parse("{_id: {_data: '" + token + "'}, " + fields + "}");
        return event.append("splitEvent", BsonDocument.parse("{fragment: " + fragment + ", of: " + of + "}"));
    }

    @Test
    void aWholeEventPassesAsItIs() {
        BsonDocument event = BsonDocument.parse("{_id: {_data: 'A'}, operationType: 'insert', fullDocument: {_id: 1}}");

        assertThat(events.add(event)).isSameAs(event);
        assertThat(events.inTheMiddle()).isFalse();
    }

    @Test
    void theFragmentsOfAnEventMakeOneEventWithTheLastFragmentsToken() {
        assertThat(events.add(fragment("B904", 1, 3,
                "operationType: 'update', documentKey: {_id: 'big'}, updateDescription: {updatedFields: {a: 'x'}}")))
            .isNull();
        assertThat(events.inTheMiddle()).isTrue();
        assertThat(events.add(fragment("B905", 2, 3, "fullDocument: {_id: 'big', _part: 'acme'}"))).isNull();
        assertThat(events.inTheMiddle()).isTrue();

        BsonDocument whole = events.add(fragment("B906", 3, 3, "fullDocumentBeforeChange: {_id: 'big', _part: 'acme'}"));

        assertThat(whole).isEqualTo(BsonDocument.parse("""
                {_id: {_data: 'B906'}, operationType: 'update', documentKey: {_id: 'big'},
                 updateDescription: {updatedFields: {a: 'x'}}, fullDocument: {_id: 'big', _part: 'acme'},
                 fullDocumentBeforeChange: {_id: 'big', _part: 'acme'}}"""));
        assertThat(events.inTheMiddle()).isFalse();
        assertThat(ChangeEvents.toSourceChange(whole).fullDocumentBeforeChange()).isNotNull();
    }

    @Test
    void anEventOfOneFragmentIsWholeAtOnce() {
        assertThat(events.add(fragment("C", 1, 1, "operationType: 'insert'"))).isEqualTo(
                BsonDocument.parse("{_id: {_data: 'C'}, operationType: 'insert'}"));
    }

    @Test
    void fragmentsThatDoNotFollowOneAnotherFailTheCursor() {
        assertThatThrownBy(() -> events.add(fragment("D905", 2, 3, "fullDocument: {}")))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("the first fragment");

        events.add(fragment("E904", 1, 3, "operationType: 'update'"));
        assertThatThrownBy(() -> events.add(fragment("E906", 3, 3, "fullDocument: {}")))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("fragment 2 of 3");
        assertThat(events.inTheMiddle()).as("a new cursor starts clean").isFalse();
    }

    @Test
    void aWholeEventInTheMiddleOfAnotherFailsTheCursor() {
        events.add(fragment("F904", 1, 2, "operationType: 'update'"));

        assertThatThrownBy(() -> events.add(BsonDocument.parse("{_id: {_data: 'G'}, operationType: 'insert'}")))
            .isInstanceOf(IllegalStateException.class);
    }
}
