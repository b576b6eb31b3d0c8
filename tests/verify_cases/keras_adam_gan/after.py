import numpy as np
import tensorflow as tf

# A small GAN on a ring of eight Gaussians, trained for 120 steps with TF1's default Adam
# betas; both losses are kept at every step.
rng = np.random.RandomState(0)
g_hidden_init = rng.normal(0.0, 0.5, (2, 32)).astype(np.float32)
g_out_init = rng.normal(0.0, 0.5, (32, 2)).astype(np.float32)
d_hidden_init = rng.normal(0.0, 0.5, (2, 32)).astype(np.float32)
d_out_init = rng.normal(0.0, 0.5, (32, 1)).astype(np.float32)
data = np.random.RandomState(1)
noise_batches = data.uniform(-1.0, 1.0, (120, 64, 2)).astype(np.float32)
angles = data.randint(0, 8, (120, 64)) * (2.0 * np.pi / 8.0)
real_batches = (np.stack([2.0 * np.cos(angles), 2.0 * np.sin(angles)], -1)
                + data.normal(0.0, 0.05, (120, 64, 2))).astype(np.float32)

g_hidden = tf.Variable(g_hidden_init, name="generator_hidden")
g_hidden_b = tf.Variable(tf.zeros([32]), name="generator_hidden_b")
g_out = tf.Variable(g_out_init, name="generator_out")
g_out_b = tf.Variable(tf.zeros([2]), name="generator_out_b")
d_hidden = tf.Variable(d_hidden_init, name="discriminator_hidden")
d_hidden_b = tf.Variable(tf.zeros([32]), name="discriminator_hidden_b")
d_out = tf.Variable(d_out_init, name="discriminator_out")
d_out_b = tf.Variable(tf.zeros([1]), name="discriminator_out_b")


def build_fake_logits(z):
    fake = tf.matmul(tf.nn.relu(tf.matmul(z, g_hidden) + g_hidden_b), g_out) + g_out_b
    fake_logits = tf.matmul(tf.nn.relu(tf.matmul(fake, d_hidden) + d_hidden_b), d_out) + d_out_b
    return fake_logits


z_spec = tf.TensorSpec([None, 2], tf.float32)

d_optimizer = tf.keras.optimizers.Adam(
    learning_rate=0.01, beta_1=0.8999999761581421, beta_2=0.9990000128746033, epsilon=1e-08
)


@tf.function(input_signature=[z_spec, tf.TensorSpec([None, 2], tf.float32)])
def train_d_step(z, real):
    with tf.GradientTape() as tape:
        fake_logits = build_fake_logits(z)
        real_logits = tf.matmul(tf.nn.relu(tf.matmul(real, d_hidden) + d_hidden_b), d_out) + d_out_b
        d_loss = (
            tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.ones_like(real_logits), logits=real_logits))
            + tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.zeros_like(fake_logits), logits=fake_logits))
        )
    gradients = tape.gradient(d_loss, [d_hidden, d_hidden_b, d_out, d_out_b])
    d_optimizer.apply_gradients(zip(gradients, [d_hidden, d_hidden_b, d_out, d_out_b]))
    return d_loss


d_optimizer.build([d_hidden, d_hidden_b, d_out, d_out_b])

g_optimizer = tf.keras.optimizers.Adam(
    learning_rate=0.01, beta_1=0.8999999761581421, beta_2=0.9990000128746033, epsilon=1e-08
)


@tf.function(input_signature=[z_spec])
def train_g_step(z):
    with tf.GradientTape() as tape:
        fake_logits = build_fake_logits(z)
        g_loss = tf.reduce_mean(
            tf.nn.sigmoid_cross_entropy_with_logits(
                labels=tf.ones_like(fake_logits), logits=fake_logits
            )
        )
    gradients = tape.gradient(g_loss, [g_hidden, g_hidden_b, g_out, g_out_b])
    g_optimizer.apply_gradients(zip(gradients, [g_hidden, g_hidden_b, g_out, g_out_b]))
    return g_loss


g_optimizer.build([g_hidden, g_hidden_b, g_out, g_out_b])


d_losses = []
g_losses = []
for step in range(120):
    dl = train_d_step(noise_batches[step], real_batches[step]).numpy()
    gl = train_g_step(noise_batches[step]).numpy()
    d_losses.append(dl)
    g_losses.append(gl)
