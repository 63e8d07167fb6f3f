package dev.materializer.spring.autoconfigure;

import com.mongodb.client.MongoClient;

import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;

/**
 * Matches when the engine knows which {@link MongoClient} to use: {@code materializer.client-bean}
 * names it, or there is a single candidate (one client, or one {@code @Primary} among several). When
 * neither holds, the condition report says so and names {@code materializer.client-bean}.
 */
final class OnMaterializerClientCondition extends AnyNestedCondition {

    OnMaterializerClientCondition() {
        super(ConfigurationPhase.REGISTER_BEAN);
    }

    @Override
    protected ConditionOutcome getFinalMatchOutcome(MemberMatchOutcomes memberOutcomes) {
        ConditionOutcome outcome = super.getFinalMatchOutcome(memberOutcomes);
        if (outcome.isMatch()) {
            return outcome;
        }
        return ConditionOutcome.noMatch(ConditionMessage.of(outcome.getMessage()
                + "; the materializer does not know which MongoClient to use: set " + MaterializerClient.KEY
                + " to the name of its bean, or mark one MongoClient bean @Primary"));
    }

    @ConditionalOnProperty(MaterializerClient.KEY)
    static final class ClientBeanNamed {

    }

    @ConditionalOnSingleCandidate(MongoClient.class)
    static final class SingleClient {

    }
}
