package dev.materializer.sample.shop;

import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;

@MongoTest(MongoKind.REPLICA_SET)
class SampleShopCollectionsReplicaSetTests extends ShopCollectionsContract {
}
