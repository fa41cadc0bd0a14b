"""Play by e-mail (issue #22, docs/mail.md): a transport over the referee service, as local
play and Discord are. Messages come in by IMAP (IDLE or polling), from a Maildir, or over
SMTP into a Maildir; answers go out by SMTP.

config    settings from the environment, `kessel.toml` ([mail]) or `.env`
parse     a raw message: who, what, the text a person wrote (MIME, quotes, signatures,
          HTML-only mail), and whether it is an automatic message never to be answered
identity  seat addresses with keyed tokens, passphrases, Authentication-Results
commands  the body's lines: commands, and the one all-or-nothing block of orders
steps     each command (and the block of orders) as a call of the referee service
deliver   the service's replies to the addresses that may read them, as letters
writing   a letter as a mail: subject, footer, seat address, map, thread
outbound  composing (threading headers, the map PNG) and sending by SMTP
desk      one message from arrival to answer, exactly once per Message-ID; the outbox
inbound_* the mailbox readers: IMAP, Maildir, the SMTP receiver
loop      `kessel mail`: the readers, the deadline clock, the sender together
"""
