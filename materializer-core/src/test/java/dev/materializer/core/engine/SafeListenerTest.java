package dev.materializer.core.engine;

import dev.materializer.core.MaterializerListener;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SafeListenerTest {

    @Test
    void everyMethodOfTheListenerReachesTheDelegateAndAThrowStopsThere() throws Exception {
        List<String> reached = new ArrayList<>();
        MaterializerListener throwing = (MaterializerListener) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] { MaterializerListener.class }, (proxy, method, args) -> {
                    reached.add(method.getName());
                    throw new IllegalStateException("a listener's bug");
                });
        SafeListener safe = new SafeListener(throwing);
        List<String> declared = new ArrayList<>();
        for (Method method : MaterializerListener.class.getDeclaredMethods()) {
            if (method.isDefault()) {
                declared.add(method.getName());
                Object[] arguments = new Object[method.getParameterCount()];
                Class<?>[] types = method.getParameterTypes();
                for (int i = 0; i < types.length; i++) {
                    arguments[i] = types[i] == boolean.class ? Boolean.FALSE : null;
                }
                method.invoke(safe, arguments);
            }
        }
        assertThat(reached).as("a method SafeListener does not pass on is a silent hole").containsExactlyElementsOf(declared);
    }
}
