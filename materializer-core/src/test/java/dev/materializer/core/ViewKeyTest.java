package dev.materializer.core;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ViewKeyTest {

    @Test
    void idsOfDifferentTypesNeverShareAText() {
        ObjectId objectId = new ObjectId();
        List<BsonValue> ids = List.of(new BsonString("1"), new BsonInt32(1), new BsonInt64(1), new BsonDouble(1),
                new BsonObjectId(objectId), new BsonString(objectId.toHexString()), new BsonString("true"),
                new BsonString(""), new BsonString("\"1\""), new BsonString("{\"a\": 1}"),
                new BsonDocument("a", new BsonInt32(1)), new BsonString("null"));
        Set<String> texts = new HashSet<>();
        ids.forEach(id -> texts.add(ViewKey.idText(id)));
        assertThat(texts).as("one text per id: %s", texts).hasSize(ids.size());
    }

    @Test
    void plainStringsAndObjectIdsReadAsUsersWriteThem() {
        ObjectId objectId = new ObjectId();
        assertThat(ViewKey.idText(new BsonString("revenue"))).isEqualTo("revenue");
        assertThat(ViewKey.idText(new BsonString("acme/revenue"))).isEqualTo("acme/revenue");
        assertThat(ViewKey.idText(new BsonObjectId(objectId))).isEqualTo(objectId.toHexString());
        assertThat(ViewKey.idText(new BsonInt32(7))).isEqualTo("7");
    }

    @Test
    void aStringThatReadsAsAnotherTypeIsQuoted() {
        assertThat(ViewKey.idText(new BsonString("1"))).isEqualTo("\"1\"");
        assertThat(ViewKey.idText(new BsonString(""))).isEqualTo("\"\"");
        assertThat(ViewKey.idText(new BsonInt64(1))).contains("$numberLong");
    }
}
