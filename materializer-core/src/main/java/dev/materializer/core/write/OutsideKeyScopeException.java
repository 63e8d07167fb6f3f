package dev.materializer.core.write;

import dev.materializer.core.ViewKey;
import org.bson.BsonValue;

/**
 * A key-scoped pass found a result row outside the ids its keys give: the restriction of the
 * pipeline did not hold for this data. Nothing it wrote is visible; the runner runs the whole view.
 */
final class OutsideKeyScopeException extends ViewRunException {

    private static final long serialVersionUID = 1L;

    OutsideKeyScopeException(BsonValue rowId) {
        super("the result restricted to the affected keys has row " + ViewKey.idText(rowId)
                + ", which none of them gives");
    }
}
