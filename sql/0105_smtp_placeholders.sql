-- The SMTP servers a database was installed with were listmonk's two placeholders, disabled:
-- smtp.yoursite.com (user "username") and smtp.gmail.com (user "username@gmail.com"), both
-- with the password "password", which the admin showed as a saved password. A database that
-- still holds exactly those gets what an install now writes: one empty, disabled server.
-- Any other SMTP setting (a server enabled, a host or user name changed) is left as it is.
UPDATE settings
SET value = json_array(json_object(
  'name', '', 'uuid', '', 'enabled', json('false'), 'host', '', 'hello_hostname', '', 'port', 587,
  'auth_protocol', 'login', 'username', '', 'password', '', 'email_headers', json_array(),
  'max_conns', 10, 'max_msg_retries', 2, 'msg_retry_delay', '10ms', 'idle_timeout', '15s',
  'wait_timeout', '5s', 'tls_type', 'STARTTLS', 'tls_skip_verify', json('false'), 'from_addresses', json_array()))
WHERE key = 'smtp'
  AND json_valid(value)
  AND json_array_length(value) = 2
  AND json_extract(value, '$[0].enabled') = 0 AND json_extract(value, '$[0].host') = 'smtp.yoursite.com'
  AND json_extract(value, '$[0].username') = 'username' AND json_extract(value, '$[0].password') = 'password'
  AND json_extract(value, '$[1].enabled') = 0 AND json_extract(value, '$[1].host') = 'smtp.gmail.com'
  AND json_extract(value, '$[1].username') = 'username@gmail.com' AND json_extract(value, '$[1].password') = 'password';
