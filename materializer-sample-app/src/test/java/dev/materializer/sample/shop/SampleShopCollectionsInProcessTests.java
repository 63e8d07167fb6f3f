package dev.materializer.sample.shop;

import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;

@MongoTest(MongoKind.IN_PROCESS)
class SampleShopCollectionsInProcessTests extends ShopCollectionsContract {
}
