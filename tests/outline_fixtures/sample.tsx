import React from "react";

interface Props { name: string }

/** Greets. */
export function Hello({ name }: Props) {
  const text = `hi ${name}`;
  return <div>{text}</div>;
}

export const Bye = (p: Props) => <span>{p.name}</span>;
