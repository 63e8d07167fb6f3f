package dev.materializer.spring.autoconfigure;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import dev.materializer.core.Materializer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter's engine bean hands every call of the {@link Materializer} contract to the current
 * engine: a method it does not override would answer with the interface's default instead (which,
 * for a wait for freshness, refuses), and the application would not get the engine's answer.
 */
class RestartableMaterializerTests {

    @Test
    void everyMethodOfTheContractReachesTheCurrentEngine() throws Exception {
        List<String> reached = new ArrayList<>();
        Materializer engine = (Materializer) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] { Materializer.class }, (proxy, method, args) -> {
                    reached.add(signature(method));
                    return zero(method.getReturnType());
                });
        RestartableMaterializer restartable = new RestartableMaterializer(() -> engine);

        List<String> expected = new ArrayList<>();
        for (Method method : Materializer.class.getMethods()) {
            if (Modifier.isStatic(method.getModifiers())) {
                continue;
            }
            expected.add(signature(method));
            Object[] args = Arrays.stream(method.getParameterTypes()).map(RestartableMaterializerTests::argument).toArray();
            Method own = RestartableMaterializer.class.getMethod(method.getName(), method.getParameterTypes());
            own.invoke(restartable, args);
        }

        assertThat(reached).containsExactlyInAnyOrderElementsOf(expected);
    }

    private static String signature(Method method) {
        return method.getName() + Arrays.toString(method.getParameterTypes());
    }

    private static Object argument(Class<?> type) {
        if (type == String.class) {
            return "x";
        }
        if (type == Duration.class) {
            return Duration.ZERO;
        }
        if (type == long.class) {
            return 0L;
        }
        return null;
    }

    private static Object zero(Class<?> type) {
        if (type == boolean.class) {
            return false;
        }
        if (type == int.class) {
            return 0;
        }
        return null;
    }
}
